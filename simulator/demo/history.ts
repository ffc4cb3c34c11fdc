import type { DemoBuilder, Life } from "./builder.js";
import type { DemoEnvironment } from "./identities.js";
import type { LedgerLease } from "./ledger.js";

// The rows a real instance keeps after months of use: leases that are over. Paperclip never deletes
// an `environment_leases` row, so most rows of a long-lived instance are history, and their sandboxes
// are destroyed (CreateOS keeps listing those for a while), purged (no longer listed) or were never
// recorded at all.

export const HISTORY_KINDS = [
  /** Released, and the release deleted the sandbox: it is listed `destroyed`. */
  "released-destroyed",
  /** Released long enough ago that CreateOS no longer lists the destroyed sandbox. */
  "released-purged",
  /** A resume found the sandbox gone: the plugin answers `{ providerLeaseId: null, metadata: { expired: true } }`. */
  "expired-unrecorded",
  /** Destroyed by Paperclip (a fingerprint mismatch, a closed workspace): `expired`, sandbox `destroyed`. */
  "expired-destroyed",
  /** The run failed and the lease was cleaned up; the sandbox is purged. */
  "failed-purged",
] as const;

export type HistoryKind = (typeof HISTORY_KINDS)[number];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A lease that ended at some point in the last four months. */
function historyLife(b: DemoBuilder): Life {
  const acquiredMs = b.nowMs - b.random.int(6 * HOUR, 120 * DAY);
  const releasedMs = Math.min(acquiredMs + b.random.int(2 * MINUTE, 6 * HOUR), b.nowMs - HOUR);
  return {
    acquiredMs,
    lastUsedMs: releasedMs - b.random.int(1_000, 60_000),
    releasedMs,
    updatedMs: releasedMs + b.random.int(50, 2_000),
  };
}

export function plantHistory(b: DemoBuilder, env: DemoEnvironment, kind: HistoryKind): LedgerLease {
  const draft = b.draft();
  const life = historyLife(b);
  const { shape, rootfs } = env.row.config;
  const destroyed = () => b.sandbox(env.account, { status: "destroyed", shape, rootfs, life });
  const common = { life, leasePolicy: b.policyOf(env), metadata: b.ownedMetadata(env, draft) };
  switch (kind) {
    case "released-destroyed":
      return b.lease(env, draft, { ...common, status: "released", providerLeaseId: destroyed() });
    case "released-purged":
      return b.lease(env, draft, { ...common, status: "released", providerLeaseId: b.unseenSandboxId(life) });
    case "expired-unrecorded":
      return b.lease(env, draft, {
        ...common,
        status: "expired",
        providerLeaseId: null,
        metadata: { expired: true },
        failureReason: "lease_expired",
      });
    case "expired-destroyed":
      return b.lease(env, draft, {
        ...common,
        status: "expired",
        providerLeaseId: destroyed(),
        failureReason: "lease_fingerprint_mismatch",
      });
    case "failed-purged":
      return b.lease(env, draft, {
        ...common,
        status: "failed",
        providerLeaseId: b.unseenSandboxId(life),
        failureReason: "adapter_or_run_failure",
      });
  }
}
