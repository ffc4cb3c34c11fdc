import type { Inventory, ProviderSandbox } from "../inventory.js";
import {
  buildMarkerIndex,
  judgeMarker,
  MARKER_PATH,
  type MarkerProof,
  type MarkerReading,
  type ProofSubject,
} from "../marker-proof.js";
import type { LeaseRow } from "../paperclip.js";
import { reconcile } from "../reconcile.js";
import { environment, MARKER, meta, NOW, ORIGIN, OTHER_COMPANY, okListing, row } from "../test-fixtures.js";
import { type Policy, PolicySchema } from "./policy.js";

/**
 * One small fleet for the janitor's tests, judged by the real `reconcile()`: a row for every built-in
 * exclusion, rows a rule may act on, untracked sandboxes old and new, and one uncertain sandbox. Marker
 * proofs are the real judge's answers to reads made up here. Used by tests only.
 */

export const SOURCE = "paperclip";
export const DARK_ORIGIN = "https://dark.example";
export const GAPPY_ORIGIN = "https://gappy.example";

export const FOREIGN_MARKER = "11111111-2222-4333-8444-555555555555";
export const LOST_MARKER = "22222222-3333-4444-8555-666666666666";
export const LIVE_MARKER = "33333333-4444-4555-8666-777777777777";

export const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

const PROD = environment({ id: "env-prod", name: "Production" });
const DARK = environment({ id: "env-dark", name: "Dark", config: { apiUrl: DARK_ORIGIN } });

const lease = (id: string, overrides: Partial<LeaseRow> = {}) =>
  row({ id, providerLeaseId: `sbx_${id}`, ...overrides });
const running = { status: "active", heartbeatRunId: "run-1", releasedAt: null, issueId: "issue-1" } as const;

/** Rows by the case they stand for; each names its own sandbox `sbx_<id>` unless it says otherwise. */
export const ROWS = {
  leaky: lease("leaky", { releasedAt: hoursAgo(26), lastUsedAt: hoursAgo(26), acquiredAt: hoursAgo(30) }),
  leakyToo: lease("leaky-too", { releasedAt: hoursAgo(30), lastUsedAt: hoursAgo(30) }),
  leakyRecent: lease("leaky-recent", { releasedAt: hoursAgo(1) }),
  inUse: lease("in-use", { ...running, metadata: meta({ marker: LIVE_MARKER }) }),
  login: lease("login", { status: "active", heartbeatRunId: null, releasedAt: null, expiresAt: null }),
  runFailing: lease("run-failing", { ...running, metadata: meta({ companyId: OTHER_COMPANY }) }),
  hostCleanup: lease("host-cleanup", {
    status: "pending_cleanup",
    metadata: meta({
      pendingCleanupInFlight: true,
      pendingCleanupLeaseExpiresAtMs: NOW.getTime() + 600_000,
    }),
  }),
  sharedOld: lease("shared-old", { providerLeaseId: "sbx_shared" }),
  sharedNew: lease("shared-new", { providerLeaseId: "sbx_shared", releasedAt: hoursAgo(2) }),
  unknown: lease("unknown", {
    environmentId: "env-dark",
    metadata: meta({ apiUrl: DARK_ORIGIN, environmentId: "env-dark" }),
  }),
  hidden: lease("hidden", { status: "retained" }),
  closed: lease("closed"),
  gone: lease("gone", { status: "retained" }),
  foreign: lease("foreign", {
    releasedAt: hoursAgo(48),
    metadata: meta({ companyId: OTHER_COMPANY, marker: FOREIGN_MARKER }),
  }),
  metadataMissing: lease("metadata-missing", { metadata: null, releasedAt: hoursAgo(48) }),
  staleConfig: lease("stale-config", { metadata: meta({ shape: "s-2vcpu-4gb" }) }),
  /** Failed before it recorded a sandbox id; its marker is what the orphan `sbx_lost` holds. */
  lost: lease("lost", { status: "failed", providerLeaseId: null, metadata: meta({ marker: LOST_MARKER }) }),
} satisfies Record<string, LeaseRow>;

const listed = (id: string, status: string, extra: Partial<ProviderSandbox> = {}): ProviderSandbox => ({
  id,
  status,
  shape: "s-1vcpu-1gb",
  createdAt: hoursAgo(30),
  ...extra,
});

export function world(): Inventory {
  return reconcile({
    snapshots: [
      {
        sourceId: SOURCE,
        environments: [PROD, DARK],
        leases: Object.values(ROWS),
        companies: [{ id: "company-a", name: "Acme" }],
        problems: [],
        gaps: [{ source: "ledger", origin: GAPPY_ORIGIN, message: "the lease list stopped at page 3" }],
      },
    ],
    listings: [
      okListing(ORIGIN, "key-a", [
        listed("sbx_leaky", "running"),
        listed("sbx_leaky-too", "running"),
        listed("sbx_leaky-recent", "running"),
        listed("sbx_in-use", "running"),
        listed("sbx_login", "running"),
        listed("sbx_run-failing", "running"),
        listed("sbx_host-cleanup", "running"),
        listed("sbx_shared", "running"),
        listed("sbx_closed", "destroyed"),
        listed("sbx_gone", "destroyed"),
        listed("sbx_foreign", "running"),
        listed("sbx_metadata-missing", "running"),
        listed("sbx_stale-config", "paused", { shape: "s-2vcpu-4gb" }),
        listed("sbx_lost", "running", { createdAt: hoursAgo(5) }),
        listed("sbx_stray", "running", { createdAt: hoursAgo(5) }),
        listed("sbx_borrowed", "running", { createdAt: hoursAgo(5) }),
        listed("sbx_fresh", "running", { createdAt: hoursAgo(0.5) }),
      ]),
      okListing(GAPPY_ORIGIN, "key-g", [listed("sbx_maybe", "running", { createdAt: hoursAgo(5) })]),
    ],
    now: NOW,
    requests: 2,
  });
}

/** The inventory with only the named candidates left (lease ids, sandbox ids), each judged as the whole world judged it. */
export function alone(inventory: Inventory, ...names: string[]): Inventory {
  return {
    ...inventory,
    leases: inventory.leases.filter((row) => names.includes(row.lease.id)),
    untracked: inventory.untracked.filter((sandbox) => names.includes(sandbox.sandboxId)),
    untrackedUncertain: inventory.untrackedUncertain.filter((sandbox) => names.includes(sandbox.sandboxId)),
  };
}

const index = buildMarkerIndex(Object.values(ROWS).map((lease) => ({ sourceId: SOURCE, lease })));

const read = (stdout: string, exitCode = 0, stderr = ""): MarkerReading => ({
  kind: "read",
  sandboxStatus: "running",
  exitCode,
  stdout,
  stderr,
  error: null,
});

/** What each read found, as the marker service would read it. */
export const READS = {
  /** The sandbox holds the row's own marker. */
  own: (marker: string) => read(marker),
  /** The sandbox holds another row's marker. */
  holding: (marker: string) => read(marker),
  absent: read("", 1, `cat: ${MARKER_PATH}: No such file or directory\n`),
  notRunning: { kind: "not-read", reason: "not-running", sandboxStatus: "paused" } as MarkerReading,
};

/** The real judge's proof of a row's sandbox. */
export function leaseProof(lease: LeaseRow, reading: MarkerReading, readAt = hoursAgo(0.1)): MarkerProof {
  const subject: ProofSubject = { kind: "lease", sourceId: SOURCE, leaseId: lease.id };
  const judged = judgeMarker(
    reading,
    {
      sandboxId: lease.providerLeaseId,
      lease: { sourceId: SOURCE, leaseId: lease.id, metadata: lease.metadata },
    },
    index,
  );
  return {
    ...judged,
    subject,
    sandboxId: lease.providerLeaseId,
    origin: ORIGIN,
    sandboxStatus: "running",
    readAt,
    gapMayRecord: false,
  };
}

/** The real judge's proof of a sandbox no row names, listed at ORIGIN. */
export function untrackedProof(
  sandboxId: string,
  reading: MarkerReading,
  readAt = hoursAgo(0.1),
): MarkerProof {
  const subject: ProofSubject = { kind: "untracked", origin: ORIGIN, credential: "key-a", sandboxId };
  const judged = judgeMarker(reading, { sandboxId, lease: null }, index);
  return {
    ...judged,
    subject,
    sandboxId,
    origin: ORIGIN,
    sandboxStatus: "running",
    readAt,
    gapMayRecord: false,
  };
}

/** The proofs kept for the world: an orphan of an ended lease, one of a live lease, one with no marker. */
export function proofs(): MarkerProof[] {
  return [
    untrackedProof("sbx_lost", READS.holding(LOST_MARKER)),
    untrackedProof("sbx_borrowed", READS.holding(LIVE_MARKER)),
    untrackedProof("sbx_stray", READS.absent),
    leaseProof(ROWS.foreign, READS.own(FOREIGN_MARKER)),
  ];
}

/** A policy from rules written as in the file, checked by the real schema. */
export function policyOf(rules: unknown[], extra: Record<string, unknown> = {}): Policy {
  return PolicySchema.parse({ version: 1, operator: "janitor (ada)", rules, ...extra });
}

export { MARKER, NOW, ORIGIN };
