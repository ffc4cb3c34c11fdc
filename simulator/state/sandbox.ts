import type { SandboxStatus } from "../catalog.js";
import type { Workspace } from "./workspace.js";

/** One sandbox as the control plane keeps it; `toView` turns it into what the API answers. */
export interface SandboxRecord {
  id: string;
  status: SandboxStatus;
  /** A transition in flight: the status it reaches, and when (epoch ms). */
  settling?: { to: SandboxStatus; atMs: number };
  shape: string;
  vcpu: number;
  mem_mib: number;
  disk_mib: number;
  rootfs: string;
  region: string;
  name: string;
  ip: string;
  ingress_enabled: boolean;
  created_at: string;
  created_by?: string;
  running_at?: string;
  paused_at?: string;
  last_resumed_at?: string;
  destroyed_at?: string;
  spawn_ms?: number;
  auto_pause_after_seconds?: number;
  envs?: string[];
  workspace: Workspace;
}
