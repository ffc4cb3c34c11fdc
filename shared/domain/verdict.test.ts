import { describe, expect, it } from "vitest";
import type {
  ActionKind,
  DestroyConfirmation,
  Headline,
  OwnershipCode,
  ProviderCode,
  RowFlag,
} from "./codes.js";
import type { LeaseVerdict, SandboxListing } from "./inventory.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { indexListings, observeProvider } from "./provider-state.js";
import {
  environment,
  failedListing,
  meta,
  NOW,
  OLD_ORIGIN,
  ORIGIN,
  OTHER_COMPANY,
  OTHER_ENV_ID,
  okListing,
  row,
  SANDBOX,
  sandbox,
} from "./test-fixtures.js";
import { classifyLease } from "./verdict.js";

interface World {
  env?: Environment | null;
  listings?: SandboxListing[];
  others?: LeaseRow[];
}

/** Judges one row the way the reconciler does: observe at its origin, then classify. */
function judge(lease: LeaseRow, { env = environment(), listings, others = [] }: World = {}): LeaseVerdict {
  const world = listings ?? [okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "paused")])];
  const observation = observeProvider(lease, env, indexListings(world));
  return classifyLease(lease, env, observation, { now: NOW, otherRowsOnSandbox: others });
}

const at = (origin: string, status: string) => [okListing(origin, "key", [sandbox(SANDBOX, status)])];

interface Expected {
  headline: Headline;
  ownership?: OwnershipCode[];
  provider?: ProviderCode;
  flags?: RowFlag[];
  allowed?: ActionKind[];
  overridable?: ActionKind[];
  confirmation?: DestroyConfirmation | null;
}

function expectVerdict(verdict: LeaseVerdict, expected: Expected): void {
  expect(verdict.headline).toBe(expected.headline);
  if (expected.ownership) expect(verdict.ownership).toEqual(expected.ownership);
  if (expected.provider) expect(verdict.provider).toBe(expected.provider);
  if (expected.flags) expect(verdict.flags).toEqual(expected.flags);
  if (expected.allowed) expect(verdict.allowedActions).toEqual(expected.allowed);
  if (expected.overridable) expect(verdict.overridableActions).toEqual(expected.overridable);
  if (expected.confirmation !== undefined) expect(verdict.destroyConfirmation).toBe(expected.confirmation);
}

const CLAIM = {
  pendingCleanupInFlight: true,
  pendingCleanupAttemptId: "attempt-1",
  pendingCleanupRetryAttempts: 1,
};

describe("classifyLease: Paperclip's edge cases, end to end", () => {
  it.each<[string, LeaseRow, World, Expected]>([
    [
      "a normal released reusable lease with a paused sandbox is ok",
      row(),
      {},
      {
        headline: "ok",
        ownership: ["owned"],
        provider: "paused",
        flags: [],
        allowed: ["release", "destroy"],
        confirmation: "click",
      },
    ],
    [
      "a row copied from another environment is foreign; only a forced destroy",
      row({ metadata: meta({ environmentId: OTHER_ENV_ID }) }),
      { listings: at(ORIGIN, "running") },
      {
        headline: "foreign",
        ownership: ["foreign-environment"],
        allowed: ["destroy"],
        confirmation: "typed-id",
      },
    ],
    [
      "another company's lease is foreign",
      row({ metadata: meta({ companyId: OTHER_COMPANY }) }),
      { listings: at(ORIGIN, "running") },
      { headline: "foreign", ownership: ["foreign-company"], allowed: ["destroy"], confirmation: "typed-id" },
    ],
    [
      "metadata nested under providerMetadata is metadata-missing, read at the environment's origin",
      row({ metadata: { driver: "plugin", providerMetadata: meta() } }),
      { listings: at(ORIGIN, "running") },
      {
        headline: "stale",
        ownership: ["metadata-missing"],
        provider: "running",
        allowed: ["destroy"],
        confirmation: "typed-id",
      },
    ],
    [
      "config drift is stale and still releasable",
      row({ metadata: meta({ shape: "s-4vcpu-8gb" }) }),
      {},
      { headline: "stale", flags: ["stale-config"], allowed: ["release", "destroy"], confirmation: "click" },
    ],
    [
      "apiUrl edit: api-url-changed, sandbox still running at the old origin, forced destroy there",
      row({ metadata: meta({ apiUrl: OLD_ORIGIN }) }),
      { listings: [...at(OLD_ORIGIN, "running"), okListing(ORIGIN, "key-new", [])] },
      {
        headline: "stale",
        ownership: ["api-url-changed"],
        provider: "running",
        // The host releases with the recorded config, so the plugin accepts it at the old URL.
        allowed: ["release", "destroy"],
        confirmation: "typed-id",
      },
    ],
    [
      "apiUrl edit with no key for the old origin: nothing can be done",
      row({ metadata: meta({ apiUrl: OLD_ORIGIN }) }),
      { listings: at(ORIGIN, "running") },
      { headline: "stale", provider: "unknown", allowed: [], overridable: [], confirmation: null },
    ],
    [
      "API key removed: unknown, never gone",
      row(),
      { listings: [] },
      { headline: "unknown", provider: "unknown", allowed: [], confirmation: null },
    ],
    [
      "API key rotated to another account: not-visible, shown as unknown",
      row({ status: "retained" }),
      { listings: [okListing(ORIGIN, "key-other-account", [sandbox("sbx_other", "running")])] },
      { headline: "unknown", provider: "not-visible", allowed: [], confirmation: null },
    ],
    [
      "a 401 on the only key: unknown",
      row(),
      { listings: [failedListing(ORIGIN, "key-a", "unauthorized")] },
      { headline: "unknown", provider: "unknown", allowed: [] },
    ],
    [
      "released row with cleanup failed and a running sandbox is leaking",
      row({ status: "released", cleanupStatus: "failed" }),
      { listings: at(ORIGIN, "running") },
      { headline: "leaking", flags: ["leaking"], allowed: ["release", "destroy"], confirmation: "click" },
    ],
    [
      "released row with cleanup failed and a destroyed sandbox is history, not leaking",
      row({ status: "released", cleanupStatus: "failed" }),
      { listings: at(ORIGIN, "destroyed") },
      { headline: "closed", provider: "gone", flags: [], allowed: [], confirmation: null },
    ],
    [
      "pending_cleanup in flight: Paperclip's sweep owns it, no actions",
      row({
        status: "pending_cleanup",
        metadata: meta({ ...CLAIM, pendingCleanupLeaseExpiresAtMs: NOW.getTime() + 60_000 }),
      }),
      { listings: at(ORIGIN, "running") },
      { headline: "ok", flags: ["host-cleanup"], allowed: [], overridable: [], confirmation: null },
    ],
    [
      "pending_cleanup whose claim expired can be acted on",
      row({
        status: "pending_cleanup",
        metadata: meta({ ...CLAIM, pendingCleanupLeaseExpiresAtMs: NOW.getTime() - 1 }),
      }),
      { listings: at(ORIGIN, "running") },
      { headline: "ok", flags: [], allowed: ["release", "destroy"] },
    ],
    [
      "orphan pending_cleanup row (environmentId null) is foreign-environment, forced destroy at its recorded origin",
      row({ status: "pending_cleanup", environmentId: null }),
      { env: null, listings: at(ORIGIN, "running") },
      {
        headline: "foreign",
        ownership: ["foreign-environment"],
        provider: "running",
        allowed: ["destroy"],
        confirmation: "typed-id",
      },
    ],
    [
      "an orphaned active row (no run, but a workspace its run left) is not in use",
      row({ status: "active", heartbeatRunId: null, executionWorkspaceId: "ws-1", releasedAt: null }),
      { listings: at(ORIGIN, "running") },
      { headline: "ok", flags: [], allowed: ["release", "destroy"] },
    ],
    [
      "a login session (active, no run, no issue, no workspace, expiring later) is held: acting needs the override",
      row({
        status: "active",
        heartbeatRunId: null,
        releasedAt: null,
        leasePolicy: "ephemeral",
        expiresAt: new Date(NOW.getTime() + 3_600_000).toISOString(),
      }),
      { listings: at(ORIGIN, "running") },
      {
        headline: "ok",
        flags: ["in-use", "login-session"],
        allowed: [],
        overridable: ["release", "destroy"],
      },
    ],
    [
      "a login session whose expiry has passed is no longer held",
      row({
        status: "active",
        heartbeatRunId: null,
        releasedAt: null,
        leasePolicy: "ephemeral",
        expiresAt: new Date(NOW.getTime() - 1_000).toISOString(),
      }),
      { listings: at(ORIGIN, "running") },
      { headline: "ok", flags: [], allowed: ["release", "destroy"] },
    ],
    [
      "two rows on one sandbox: the released one is not leaking, and may not be acted on under the active one without override",
      row({ status: "released" }),
      { listings: at(ORIGIN, "running"), others: [row({ status: "active", heartbeatRunId: "run-2" })] },
      {
        headline: "ok",
        flags: ["shared"],
        allowed: [],
        overridable: ["release", "destroy"],
        confirmation: "click",
      },
    ],
    [
      "two released rows on one sandbox: shared, but nothing holds it",
      row({ status: "released" }),
      { others: [row({ status: "released" })] },
      { headline: "ok", flags: ["shared"], allowed: ["release", "destroy"], overridable: [] },
    ],
    [
      "live commands: in use needs an explicit override",
      row({ status: "active", heartbeatRunId: "run-1", releasedAt: null }),
      { listings: at(ORIGIN, "running") },
      {
        headline: "ok",
        flags: ["in-use"],
        allowed: [],
        overridable: ["release", "destroy"],
        confirmation: "click",
      },
    ],
    [
      "a transitional state is shown as it is",
      row(),
      { listings: at(ORIGIN, "pausing") },
      { headline: "ok", provider: "pausing" },
    ],
    [
      "an error sandbox is live (resumable)",
      row({ metadata: meta({ companyId: OTHER_COMPANY }) }),
      { listings: at(ORIGIN, "error") },
      { headline: "foreign", provider: "error", allowed: ["destroy"], confirmation: "typed-id" },
    ],
    [
      "an unknown lease status value is kept and judged",
      row({ status: "paused" }),
      { listings: at(ORIGIN, "running") },
      { headline: "ok", flags: [], allowed: ["release", "destroy"] },
    ],
    [
      "unknown sandbox status value: unknown, nothing done",
      row(),
      { listings: at(ORIGIN, "hibernating") },
      { headline: "unknown", provider: "unknown", allowed: [], confirmation: null },
    ],
    [
      "an archived environment's lease is still owned",
      row(),
      { env: environment({ status: "archived" }) },
      { headline: "ok", ownership: ["owned"], allowed: ["release", "destroy"] },
    ],
    [
      "newer-fork metadata: extra fields ignored, a released running sandbox is still billing (leaking)",
      row({
        metadata: meta({ adapterType: "codex", autoPauseAfterSeconds: 600, effectiveEgressAllowlist: [] }),
      }),
      { listings: at(ORIGIN, "running") },
      { headline: "leaking", ownership: ["owned"], flags: ["leaking"] },
    ],
    [
      "a probe's active row with no run, issue or workspace looks like a login session and is held (the reading that destroys less)",
      row({ status: "active", heartbeatRunId: null, leasePolicy: "ephemeral", releasedAt: null }),
      { listings: at(ORIGIN, "running") },
      { headline: "ok", flags: ["in-use", "login-session"] },
    ],
    [
      "no sandbox id on a live row: stale, nothing to act on",
      row({ status: "retained", providerLeaseId: null }),
      {},
      {
        headline: "stale",
        ownership: ["owned", "no-sandbox-id"],
        provider: "unknown",
        allowed: [],
        confirmation: null,
      },
    ],
    [
      "gone + owned on a row not yet over → stale; release refused, destroy harmless",
      row({ status: "pending_cleanup" }),
      { listings: at(ORIGIN, "failed") },
      { headline: "stale", provider: "gone", allowed: ["destroy"], confirmation: "click" },
    ],
    [
      "foreign beats stale beats leaking: foreign company with drift and a running released sandbox",
      row({ metadata: meta({ companyId: OTHER_COMPANY, shape: "x" }) }),
      { listings: at(ORIGIN, "running") },
      { headline: "foreign", flags: ["stale-config", "leaking"] },
    ],
    [
      "stale-config + leaking → stale",
      row({ metadata: meta({ region: "eu" }) }),
      { listings: at(ORIGIN, "running") },
      { headline: "stale", flags: ["stale-config", "leaking"], allowed: ["release", "destroy"] },
    ],
  ])("%s", (_, lease, world, expected) => {
    expectVerdict(judge(lease, world), expected);
  });
});

describe("classifyLease: history is closed, checked first", () => {
  const purged = { listings: [okListing(ORIGIN, "key-a", [sandbox("sbx_other", "running")])] };
  const expired = { status: "expired", providerLeaseId: null, metadata: { expired: true } } as const;
  it.each<[string, LeaseRow, World]>([
    ["released, sandbox destroyed", row({ status: "released" }), { listings: at(ORIGIN, "destroyed") }],
    ["released, sandbox purged (no account lists it)", row({ status: "released" }), purged],
    [
      "released, cleanup failed, sandbox destroyed",
      row({ cleanupStatus: "failed" }),
      { listings: at(ORIGIN, "destroyed") },
    ],
    [
      "expired, destroyed by a fingerprint mismatch",
      row({ status: "expired", failureReason: "lease_fingerprint_mismatch" }),
      { listings: at(ORIGIN, "destroyed") },
    ],
    ["expired with providerLeaseId null and metadata {expired:true}", row(expired), {}],
    ["expired with no sandbox id and no listing at all", row(expired), { listings: [] }],
    ["failed, sandbox failed at CreateOS", row({ status: "failed" }), { listings: at(ORIGIN, "failed") }],
    ["failed, purged", row({ status: "failed" }), purged],
    ["failed, never recorded a sandbox", row({ status: "failed", providerLeaseId: null }), {}],
    [
      "released, ephemeral, deleted",
      row({ leasePolicy: "ephemeral" }),
      { listings: at(ORIGIN, "destroyed") },
    ],
    [
      "released under an environment that now names another company: foreign metadata stays in the detail",
      row({ metadata: meta({ companyId: OTHER_COMPANY }) }),
      { listings: at(ORIGIN, "destroyed") },
    ],
    [
      "released, metadata missing, purged",
      row({ metadata: null }),
      { listings: [okListing(ORIGIN, "k", [])] },
    ],
    [
      "released orphan row, destroyed",
      row({ environmentId: null }),
      { env: null, listings: at(ORIGIN, "destroyed") },
    ],
  ])("%s", (_, lease, world) => {
    const verdict = judge(lease, world);
    expect(verdict.headline).toBe("closed");
    expect(verdict.allowedActions).toEqual([]);
    expect(verdict.overridableActions).toEqual([]);
    expect(verdict.destroyConfirmation).toBeNull();
    expect(verdict.refusals.destroy?.reason).toBe("closed");
  });

  it("keeps the ownership codes and flags of a closed row", () => {
    const verdict = judge(row({ metadata: meta({ companyId: OTHER_COMPANY, shape: "x" }) }), {
      listings: at(ORIGIN, "destroyed"),
    });
    expect(verdict.headline).toBe("closed");
    expect(verdict.ownership).toEqual(["foreign-company"]);
    expect(verdict.flags).toEqual(["stale-config"]);
  });

  it.each<[string, LeaseRow, World, Headline]>([
    ["released, sandbox still paused (warm, reusable)", row(), {}, "ok"],
    [
      "released, sandbox running: leaking, not history",
      row(),
      { listings: at(ORIGIN, "running") },
      "leaking",
    ],
    [
      "released, listing failed: unknown, not history",
      row(),
      { listings: [failedListing(ORIGIN, "k", "timeout")] },
      "unknown",
    ],
    ["released, no key for its origin: unknown, not history", row(), { listings: [] }, "unknown"],
    [
      "active, sandbox destroyed: stale, a run still thinks it has it",
      row({ status: "active" }),
      { listings: at(ORIGIN, "destroyed") },
      "stale",
    ],
    [
      "retained, purged: unknown",
      row({ status: "retained" }),
      { listings: [okListing(ORIGIN, "k", [])] },
      "unknown",
    ],
    [
      "pending_cleanup, destroyed: stale",
      row({ status: "pending_cleanup" }),
      { listings: at(ORIGIN, "destroyed") },
      "stale",
    ],
    [
      "a status Paperclip does not define, destroyed: stale",
      row({ status: "archived" }),
      { listings: at(ORIGIN, "destroyed") },
      "stale",
    ],
  ])("a row that is not history keeps its live verdict: %s", (_, lease, world, expected) => {
    expect(judge(lease, world).headline).toBe(expected);
  });
});
