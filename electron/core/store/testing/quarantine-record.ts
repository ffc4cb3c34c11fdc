import type { Quarantine } from "../../../../shared/domain/quarantine.js";

/** A quarantine record as a store keeps it: one waiting sandbox, changed by `overrides`. */
export function quarantineRecord(overrides: Partial<Quarantine> = {}): Quarantine {
  return {
    quarantineId: "q-1",
    sandboxId: "sb-1",
    origin: "http://127.0.0.1:9",
    credential: "alpha",
    leaseId: null,
    sourceId: null,
    environmentName: null,
    hours: 24,
    createdAt: "2026-12-01T09:00:00.000Z",
    pausedAt: null,
    dueAt: "2026-12-02T09:00:00.000Z",
    state: "waiting",
    endedAt: null,
    reason: null,
    message: null,
    claimedBy: null,
    confirmedBy: "click",
    planId: null,
    jobId: null,
    operator: "ada",
    ...overrides,
  };
}
