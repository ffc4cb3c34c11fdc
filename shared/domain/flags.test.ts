import { describe, expect, it } from "vitest";
import type { ProviderCode, RowFlag } from "./codes.js";
import { driftedFields } from "./config-drift.js";
import { isStranded, rowFlags } from "./flags.js";
import { metadataObject } from "./lease-metadata.js";
import { ownership } from "./ownership.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { environment, MARKER, meta, NOW, row } from "./test-fixtures.js";

const IN_FUTURE = NOW.getTime() + 60_000;
const IN_PAST = NOW.getTime() - 60_000;

const flagsOf = (
  lease: LeaseRow,
  provider: ProviderCode = "paused",
  env: Environment | null = environment(),
  otherRowsOnSandbox: LeaseRow[] = [],
): RowFlag[] => rowFlags(lease, env, provider, { now: NOW, otherRowsOnSandbox }, ownership(lease, env));

describe("stale-config: the next resume would expire the lease", () => {
  it.each<[string, Record<string, unknown>, boolean]>([
    ["shape, rootfs, region and marker as recorded", {}, false],
    ["shape changed", { shape: "s-2vcpu-4gb" }, true],
    ["rootfs changed", { rootfs: "ubuntu-24.04" }, true],
    ["region changed", { region: "eu-west" }, true],
    ["rootfs recorded as null, config omits it (the parse reads both as null)", { rootfs: null }, false],
    [
      "rootfs not recorded at all (the plugin compares strictly: nothing recorded is not null)",
      { rootfs: undefined },
      true,
    ],
    ["marker missing", { marker: undefined }, true],
    ["marker not a UUID", { marker: "wrong" }, true],
    ["marker in upper case (the plugin's pattern is lower case)", { marker: MARKER.toUpperCase() }, true],
    ["marker a number", { marker: 42 }, true],
    ["another provider's row is never stale-config", { provider: "ssh", shape: "other" }, false],
    ["newer-fork extra fields do not count", { adapterType: "codex", autoPauseAfterSeconds: 300 }, false],
  ])("%s → %s", (_, overrides, expected) => {
    expect(flagsOf(row({ metadata: meta(overrides) })).includes("stale-config")).toBe(expected);
  });

  it("is never raised for metadata that is not an object", () => {
    expect(flagsOf(row({ metadata: "createos" }))).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, Partial<Environment["config"]>, string[]]>([
    ["nothing differs", {}, {}, []],
    ["reuseLease turned off since", {}, { reuseLease: false }, ["reuseLease"]],
    ["timeoutMs changed since", { timeoutMs: 300_000 }, { timeoutMs: 60_000 }, ["timeoutMs"]],
    ["a field an older host never recorded is not compared", {}, { timeoutMs: 60_000 }, []],
    ["timeoutMs recorded and unchanged", { timeoutMs: 60_000 }, { timeoutMs: 60_000 }, []],
    [
      "any other stored-config field (the fingerprint covers the whole stored config)",
      { egressAllowlist: [] },
      { egressAllowlist: ["a.test"] } as never,
      ["egressAllowlist"],
    ],
    [
      "a nested field equal with its keys in another order",
      { limits: { b: 1, a: 2 } },
      { limits: { a: 2, b: 1 } } as never,
      [],
    ],
    [
      "several fields, in fingerprint order",
      { region: "eu", timeoutMs: 1 },
      { shape: "s-2vcpu-4gb", timeoutMs: 5 },
      ["shape", "region", "timeoutMs"],
    ],
    ["the API URL has its own code, never stale-config", {}, { apiUrl: "https://new.example" }, []],
    ["a secret in the config is fingerprinted by version, not compared", {}, { apiKey: "k-2" } as never, []],
  ])("lists the fields whose recorded value differs: %s", (_, recorded, config, expected) => {
    const metadata = metadataObject(meta(recorded));
    if (metadata === null) throw new Error("metadata");
    expect(driftedFields(metadata, environment({ config }), undefined)).toEqual(expected);
  });

  it("compares nothing against a config Paperclip did not show (the redacted view is {})", () => {
    const hidden = { ...environment(), config: {} };
    expect(flagsOf(row({ metadata: meta({ shape: "x" }) }), "paused", hidden)).toEqual([]);
  });

  it("still checks the marker of an orphan row, which has no config to drift from", () => {
    expect(flagsOf(row({ metadata: meta({ shape: "x" }) }), "paused", null)).toEqual([]);
    expect(flagsOf(row({ metadata: meta({ marker: "x" }) }), "paused", null)).toEqual(["stale-config"]);
  });
});

describe("leaking: a sandbox billing compute behind a finished lease", () => {
  it.each<[string, Partial<LeaseRow>, ProviderCode, boolean]>([
    ["released lease, sandbox running", { status: "released" }, "running", true],
    ["expired lease, sandbox creating", { status: "expired" }, "creating", true],
    ["failed lease, sandbox resuming", { status: "failed" }, "resuming", true],
    [
      "released with cleanup failed, sandbox running",
      { status: "released", cleanupStatus: "failed" },
      "running",
      true,
    ],
    [
      "cleanup failed on a retained lease, sandbox running",
      { status: "retained", cleanupStatus: "failed" },
      "running",
      true,
    ],
    [
      "pending_cleanup whose cleanup failed, sandbox running: needs an operator",
      { status: "pending_cleanup", cleanupStatus: "failed" },
      "running",
      true,
    ],
    [
      "cleanup failed on a lease a run holds now: billing for that run",
      { status: "active", heartbeatRunId: "run-1", cleanupStatus: "failed" },
      "running",
      false,
    ],
    ["released reusable lease, sandbox paused: the warm state", { status: "released" }, "paused", false],
    ["released lease, sandbox pausing", { status: "released" }, "pausing", false],
    ["cleanup failed but the sandbox is paused", { cleanupStatus: "failed" }, "paused", false],
    ["cleanup failed but the sandbox is gone", { cleanupStatus: "failed" }, "gone", false],
    ["cleanup failed, sandbox state unknown", { cleanupStatus: "failed" }, "unknown", false],
    ["active lease, sandbox running", { status: "active" }, "running", false],
    ["retained lease, sandbox running", { status: "retained" }, "running", false],
    [
      "pending_cleanup lease, sandbox running (the sweep owns it)",
      { status: "pending_cleanup" },
      "running",
      false,
    ],
    ["a status Paperclip does not define, sandbox running", { status: "paused" }, "running", false],
  ])("%s → %s", (_, overrides, provider, expected) => {
    expect(flagsOf(row(overrides), provider).includes("leaking")).toBe(expected);
  });
});

describe("leaking: a sandbox that a run or a retained lease holds", () => {
  it.each<[string, string, boolean]>([
    ["resumed by a new run: another row is active", "active", false],
    ["another row retains it", "retained", false],
    ["another row is pending_cleanup: Paperclip has not cleaned it, still a leak", "pending_cleanup", true],
    ["every other row is released too", "released", true],
    ["the other row expired", "expired", true],
  ])("%s → leaking %s", (_, otherStatus, expected) => {
    const flags = flagsOf(row({ status: "released" }), "running", environment(), [
      row({ status: otherStatus }),
    ]);
    expect(flags.includes("leaking")).toBe(expected);
  });
});

describe("in-use: a run or a session holds the lease", () => {
  it.each<[string, Partial<LeaseRow>, boolean]>([
    ["active with a heartbeat run", { status: "active", heartbeatRunId: "run-1" }, true],
    [
      "active without a run, its issue left behind (orphaned active)",
      { status: "active", heartbeatRunId: null, issueId: "issue-1" },
      false,
    ],
    [
      "active without a run, issue or workspace: a login session",
      { status: "active", heartbeatRunId: null },
      true,
    ],
    [
      "a login session whose expiry is ahead",
      { status: "active", heartbeatRunId: null, expiresAt: new Date(IN_FUTURE).toISOString() },
      true,
    ],
    [
      "a login session whose expiry has passed",
      { status: "active", heartbeatRunId: null, expiresAt: new Date(IN_PAST).toISOString() },
      false,
    ],
    ["released, run id left behind", { status: "released", heartbeatRunId: "run-1" }, false],
    [
      "active, its run seen running",
      { status: "active", heartbeatRunId: "run-1", heartbeatRunStatus: "running" },
      true,
    ],
    [
      "active, its run seen finished (stranded)",
      { status: "active", heartbeatRunId: "run-1", heartbeatRunStatus: "succeeded" },
      false,
    ],
    [
      "active, its run row gone (stranded)",
      { status: "active", heartbeatRunId: "run-1", heartbeatRunStatus: null },
      false,
    ],
  ])("%s → %s", (_, overrides, expected) => {
    expect(flagsOf(row(overrides)).includes("in-use")).toBe(expected);
  });
});

describe("stranded: an active row whose run the source sees over or gone", () => {
  it.each<[string, Partial<LeaseRow>, boolean]>([
    ["run queued", { status: "active", heartbeatRunId: "run-1", heartbeatRunStatus: "queued" }, false],
    ["run scheduled for retry", { status: "active", heartbeatRunStatus: "scheduled_retry" }, false],
    ["run failed", { status: "active", heartbeatRunId: "run-1", heartbeatRunStatus: "failed" }, true],
    ["run status unknown to Paperclip", { status: "active", heartbeatRunStatus: "paused-ish" }, true],
    ["run missing", { status: "active", heartbeatRunId: "run-1", heartbeatRunStatus: null }, true],
    ["source cannot see runs", { status: "active", heartbeatRunId: "run-1" }, false],
    ["released row, run over", { status: "released", heartbeatRunStatus: "succeeded" }, false],
  ])("%s → %s", (_, overrides, expected) => {
    expect(isStranded(row(overrides))).toBe(expected);
  });
});

describe("host-cleanup: Paperclip's sweep holds an unexpired claim", () => {
  const pending = (claim: Record<string, unknown>, status = "pending_cleanup") =>
    row({ status, metadata: meta({ pendingCleanupRetryAttempts: 2, ...claim }) });

  it.each<[string, LeaseRow, boolean]>([
    [
      "pending_cleanup in flight, claim unexpired",
      pending({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: IN_FUTURE }),
      true,
    ],
    [
      "claim expiry stored as a numeric string",
      pending({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: String(IN_FUTURE) }),
      true,
    ],
    [
      "claim expired",
      pending({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: IN_PAST }),
      false,
    ],
    [
      "claim expires exactly now",
      pending({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: NOW.getTime() }),
      false,
    ],
    [
      "not in flight",
      pending({ pendingCleanupInFlight: false, pendingCleanupLeaseExpiresAtMs: IN_FUTURE }),
      false,
    ],
    [
      "in flight as the string 'true'",
      pending({ pendingCleanupInFlight: "true", pendingCleanupLeaseExpiresAtMs: IN_FUTURE }),
      false,
    ],
    ["expiry missing", pending({ pendingCleanupInFlight: true }), false],
    [
      "expiry not a number",
      pending({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: "soon" }),
      false,
    ],
    [
      "expiry an object that cannot become a number",
      pending({
        pendingCleanupInFlight: true,
        pendingCleanupLeaseExpiresAtMs: { valueOf: "x", toString: "y" },
      }),
      false,
    ],
    [
      "claim on a row that is no longer pending_cleanup",
      pending({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: IN_FUTURE }, "expired"),
      false,
    ],
  ])("%s → %s", (_, lease, expected) => {
    expect(flagsOf(lease).includes("host-cleanup")).toBe(expected);
  });
});

describe("shared: another row names the same sandbox", () => {
  it("is raised when another row names the sandbox", () => {
    expect(flagsOf(row(), "paused", environment(), [row({ status: "released" })])).toEqual(["shared"]);
  });

  it("is not raised for a row alone on its sandbox", () => {
    expect(flagsOf(row())).toEqual([]);
  });
});

it("lists flags in ROW_FLAGS order", () => {
  const lease = row({ status: "released", cleanupStatus: "failed", metadata: meta({ shape: "x" }) });
  expect(flagsOf(lease, "running", environment(), [row()])).toEqual(["stale-config", "leaking", "shared"]);
});
