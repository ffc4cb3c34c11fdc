import type { SandboxStatus } from "../catalog.js";
import type { SandboxRecord } from "./sandbox.js";

/** CreateOS's sandbox object. Empty optionals are omitted, never null. */
export interface SandboxView {
  id: string;
  status: SandboxStatus;
  vcpu: number;
  mem_mib: number;
  disk_mib: number;
  created_at: string;
  ingress_enabled: boolean;
  ip?: string;
  name?: string;
  shape?: string;
  rootfs?: string;
  region?: string;
  running_at?: string;
  paused_at?: string;
  last_resumed_at?: string;
  destroyed_at?: string;
  spawn_ms?: number;
  envs?: string[];
  created_by?: string;
  ingress_url_template?: string;
  auto_pause_after_seconds?: number;
}

export function toView(sandbox: SandboxRecord): SandboxView {
  const view: SandboxView = {
    id: sandbox.id,
    status: sandbox.status,
    vcpu: sandbox.vcpu,
    mem_mib: sandbox.mem_mib,
    disk_mib: sandbox.disk_mib,
    created_at: sandbox.created_at,
    ingress_enabled: sandbox.ingress_enabled,
  };
  // The VM has no address until it has booted.
  if (sandbox.status !== "creating") view.ip = sandbox.ip;
  const optional = {
    name: sandbox.name,
    shape: sandbox.shape,
    rootfs: sandbox.rootfs,
    region: sandbox.region,
    running_at: sandbox.running_at,
    paused_at: sandbox.paused_at,
    last_resumed_at: sandbox.last_resumed_at,
    destroyed_at: sandbox.destroyed_at,
    spawn_ms: sandbox.spawn_ms,
    created_by: sandbox.created_by,
    auto_pause_after_seconds: sandbox.auto_pause_after_seconds,
    envs: sandbox.envs?.length ? sandbox.envs : undefined,
    ingress_url_template: sandbox.ingress_enabled ? ingressTemplate(sandbox) : undefined,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined && value !== "") (view as unknown as Record<string, unknown>)[key] = value;
  }
  return view;
}

function ingressTemplate(sandbox: SandboxRecord): string {
  const ulid = sandbox.id.replace(/^sb[-_]/, "").toLowerCase();
  return `https://${ulid}-<port>.${sandbox.region}.sb.createos.sh`;
}
