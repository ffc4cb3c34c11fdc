import type { Headline } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, ProviderObservation } from "../../../../shared/domain/inventory.js";
import type { LeaseRow } from "../../../../shared/domain/paperclip.js";

/**
 * A classified lease as the store's tests need one: every field a row is written from present (the
 * store keeps the row's view and search text beside its JSON), the headline chosen, the rest plain.
 */
export function storedLease(
  sourceId: string,
  id: string,
  headline: Headline,
  overrides: {
    lease?: Partial<LeaseRow> & Record<string, unknown>;
    provider?: Partial<ProviderObservation>;
  } = {},
): ClassifiedLease {
  return {
    sourceId,
    lease: {
      id,
      companyId: "company-1",
      environmentId: `env-${sourceId}`,
      executionWorkspaceId: null,
      issueId: null,
      heartbeatRunId: null,
      status: headline === "closed" ? "released" : "active",
      leasePolicy: "ephemeral",
      provider: "createos",
      providerLeaseId: `sb-${id}`,
      acquiredAt: "2026-11-29T00:00:00.000Z",
      lastUsedAt: "2026-11-29T01:00:00.000Z",
      expiresAt: null,
      releasedAt: null,
      failureReason: null,
      cleanupStatus: null,
      metadata: null,
      ...overrides.lease,
    } as LeaseRow,
    environment: null,
    verdict: {
      ownership: [],
      provider: overrides.provider?.code ?? "unknown",
      flags: [],
      headline,
      allowedActions: [],
      overridableActions: [],
      destroyConfirmation: null,
      refusals: {},
    },
    provider: {
      code: "unknown",
      origin: null,
      originFrom: "none",
      credential: null,
      observedAt: null,
      rawStatus: null,
      unknownReason: null,
      sandbox: null,
      ...overrides.provider,
    },
    sharedWith: [],
  };
}
