import type { LeaseRowView } from "../../../shared/contract";

/** A lease row for tests: an owned, ok row unless the overrides say otherwise. */
export function row(overrides: Partial<LeaseRowView> = {}): LeaseRowView {
  return {
    leaseId: "lease-1",
    sourceId: "ledger:/demo.json",
    environmentId: "env-1",
    environmentName: "Production",
    environmentKnown: true,
    companyId: "company-1",
    companyName: null,
    sandboxId: "sb-1",
    status: "active",
    leasePolicy: "ephemeral",
    headline: "ok",
    provider: "running",
    unknownReason: null,
    ownership: ["owned"],
    flags: [],
    allowedActions: ["release", "destroy"],
    overridableActions: [],
    destroyConfirmation: "click",
    origin: "https://api.createos.example",
    acquiredAtMs: Date.parse("2025-06-01T00:00:00Z"),
    lastUsedAtMs: Date.parse("2025-06-02T00:00:00Z"),
    sharedCount: 0,
    actedOnBy: null,
    shape: null,
    ...overrides,
  };
}
