import { describe, expect, it } from "vitest";
import type { SandboxStatus } from "../catalog.js";
import { destroy, pause, resume, settle } from "./lifecycle.js";
import type { SandboxRecord } from "./sandbox.js";
import { Workspace } from "./workspace.js";

const T = 300;

function record(status: SandboxStatus): SandboxRecord {
  return {
    id: "sb-x",
    status,
    shape: "s-1vcpu-1gb",
    vcpu: 1,
    mem_mib: 1024,
    disk_mib: 10240,
    rootfs: "devbox:1",
    region: "eu",
    name: "calm-otter",
    ip: "10.0.0.2",
    ingress_enabled: false,
    created_at: "2026-11-01T00:00:00.000Z",
    workspace: new Workspace({ "/f": "x" }),
  };
}

describe("the sandbox status machine", () => {
  it.each([
    ["running", "accepted", "pausing"],
    ["paused", "already-paused", "paused"],
    ["pausing", "not-running", "pausing"],
    ["error", "not-running", "error"],
    ["destroyed", "not-running", "destroyed"],
  ] as const)("pause from %s → %s (%s)", (from, outcome, status) => {
    const sandbox = record(from);
    expect(pause(sandbox, 0, T)).toBe(outcome);
    expect(sandbox.status).toBe(status);
  });

  it.each([
    ["paused", "accepted", "resuming"],
    ["error", "accepted", "resuming"],
    ["running", "already-running", "running"],
    ["resuming", "not-resumable", "resuming"],
    ["failed", "not-resumable", "failed"],
  ] as const)("resume from %s → %s (%s)", (from, outcome, status) => {
    const sandbox = record(from);
    expect(resume(sandbox, 0, T)).toBe(outcome);
    expect(sandbox.status).toBe(status);
  });

  it.each([
    ["running", "destroying", "destroying"],
    ["creating", "destroying", "destroying"],
    ["paused", "destroyed", "destroyed"],
    ["error", "destroyed", "destroyed"],
    ["destroyed", "destroyed", "destroyed"],
    ["failed", "destroyed", "failed"],
  ] as const)("delete from %s answers %s and leaves the row %s", (from, answer, status) => {
    const sandbox = record(from);
    expect(destroy(sandbox, 0, T)).toBe(answer);
    expect(sandbox.status).toBe(status);
  });

  it("settles exactly when the transition is due, stamping the scheduled time", () => {
    const sandbox = record("running");
    pause(sandbox, 1_000, T);
    expect(settle(sandbox, 1_299).status).toBe("pausing");
    expect(settle(sandbox, 5_000).status).toBe("paused");
    expect(sandbox.paused_at).toBe(new Date(1_300).toISOString());
    resume(sandbox, 6_000, T);
    settle(sandbox, 7_000);
    expect(sandbox.last_resumed_at).toBe(new Date(6_300).toISOString());
  });

  it("wipes the disk when a sandbox is destroyed", () => {
    const sandbox = record("running");
    destroy(sandbox, 0, T);
    expect(sandbox.workspace.filePaths()).toEqual(["/f"]);
    settle(sandbox, T);
    expect(sandbox.destroyed_at).toBe(new Date(T).toISOString());
    expect(sandbox.workspace.filePaths()).toEqual([]);
  });
});
