import type { SandboxStatus } from "../catalog.js";
import type { SandboxRecord } from "./sandbox.js";

// CreateOS's status machine. Transitions are evaluated lazily from timestamps:
// a record carries where it is heading and when, and every read settles it first. Nothing runs
// in the background, so a world with 20,000 sandboxes costs no timers.

/** Where each transitional status settles when nothing goes wrong. */
const SETTLES_TO: Partial<Record<SandboxStatus, SandboxStatus>> = {
  creating: "running",
  forking: "running",
  pausing: "paused",
  resuming: "running",
  destroying: "destroyed",
};

export function isTransitional(status: SandboxStatus): boolean {
  return SETTLES_TO[status] !== undefined;
}

/** Seeded rows caught mid-transition finish it one transition after the world starts. */
export function scheduleSeededTransition(sandbox: SandboxRecord, nowMs: number, transitionMs: number): void {
  const to = SETTLES_TO[sandbox.status];
  if (to) sandbox.settling = { to, atMs: nowMs + transitionMs };
}

export function settle(sandbox: SandboxRecord, nowMs: number): SandboxRecord {
  const pending = sandbox.settling;
  if (!pending || nowMs < pending.atMs) return sandbox;
  const at = new Date(pending.atMs).toISOString();
  const from = sandbox.status;
  sandbox.status = pending.to;
  sandbox.settling = undefined;
  if (pending.to === "running") {
    sandbox.running_at = at;
    if (from === "resuming") sandbox.last_resumed_at = at;
  } else if (pending.to === "paused") {
    sandbox.paused_at = at;
  } else if (pending.to === "destroyed") {
    sandbox.destroyed_at = at;
    sandbox.workspace.clear();
  }
  return sandbox;
}

export type PauseOutcome = "accepted" | "already-paused" | "not-running";

export function pause(sandbox: SandboxRecord, nowMs: number, transitionMs: number): PauseOutcome {
  if (sandbox.status === "paused") return "already-paused";
  // A second pause while pausing is a 409 too: Paperclip re-reads the state on 409 [I].
  if (sandbox.status !== "running") return "not-running";
  sandbox.status = "pausing";
  sandbox.settling = { to: "paused", atMs: nowMs + transitionMs };
  return "accepted";
}

export type ResumeOutcome = "accepted" | "already-running" | "not-resumable";

export function resume(sandbox: SandboxRecord, nowMs: number, transitionMs: number): ResumeOutcome {
  if (sandbox.status === "running") return "already-running";
  if (sandbox.status !== "paused" && sandbox.status !== "error") return "not-resumable";
  sandbox.status = "resuming";
  sandbox.settling = { to: "running", atMs: nowMs + transitionMs };
  return "accepted";
}

/**
 * Delete never conflicts. A live VM is reclaimed asynchronously; a paused or errored one has no
 * host to tear down and goes inline; a terminal row is a no-op that still answers `destroyed`.
 */
export function destroy(
  sandbox: SandboxRecord,
  nowMs: number,
  transitionMs: number,
): "destroying" | "destroyed" {
  switch (sandbox.status) {
    case "destroyed":
    case "failed":
      return "destroyed";
    case "destroying":
      return "destroying";
    case "paused":
    case "error":
      sandbox.status = "destroyed";
      sandbox.settling = undefined;
      sandbox.destroyed_at = new Date(nowMs).toISOString();
      sandbox.workspace.clear();
      return "destroyed";
    default:
      sandbox.status = "destroying";
      sandbox.settling = { to: "destroyed", atMs: nowMs + transitionMs };
      return "destroying";
  }
}

/** Statuses that still hold a name (names are unique among a user's non-terminal sandboxes). */
export function isTerminal(status: SandboxStatus): boolean {
  return status === "destroyed" || status === "failed";
}
