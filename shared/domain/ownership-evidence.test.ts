import { describe, expect, it } from "vitest";
import { HEADLINES, OWNERSHIP_CODES } from "./codes.js";
import type { ClassifiedLease, SandboxListing } from "./inventory.js";
import {
  type EvidenceField,
  explainVerdict,
  type FieldEvidence,
  ownershipEvidence,
} from "./ownership-evidence.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { indexListings, observeProvider } from "./provider-state.js";
import {
  COMPANY,
  ENV_ID,
  environment,
  failedListing,
  MARKER,
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

const evidenceOf = (lease: LeaseRow, env: Environment | null = environment()) =>
  Object.fromEntries(ownershipEvidence(lease, env).map((line) => [line.field, line])) as Record<
    EvidenceField,
    FieldEvidence
  >;

describe("ownershipEvidence: field by field, for the detail view", () => {
  it("lists every field, in order, all matching for an owned lease", () => {
    const lines = ownershipEvidence(row(), environment());
    expect(lines.map((line) => line.field)).toEqual([
      "provider",
      "companyId",
      "environmentId",
      "apiUrl",
      "shape",
      "rootfs",
      "region",
      "marker",
    ]);
    expect(lines.every((line) => line.match === "match")).toBe(true);
  });

  it.each<[string, Record<string, unknown>, EvidenceField, Partial<FieldEvidence>]>([
    [
      "provider differs",
      { provider: "ssh" },
      "provider",
      { recorded: "ssh", expected: "createos", match: "mismatch" },
    ],
    [
      "company differs",
      { companyId: OTHER_COMPANY },
      "companyId",
      { recorded: OTHER_COMPANY, expected: COMPANY, match: "mismatch" },
    ],
    [
      "environment differs",
      { environmentId: OTHER_ENV_ID },
      "environmentId",
      { recorded: OTHER_ENV_ID, expected: ENV_ID, match: "mismatch" },
    ],
    [
      "apiUrl edited",
      { apiUrl: OLD_ORIGIN },
      "apiUrl",
      { recorded: OLD_ORIGIN, expected: ORIGIN, match: "mismatch" },
    ],
    [
      "apiUrl with /v1 is shown as recorded and does not match: the plugin compares it with the bare origin",
      { apiUrl: `${ORIGIN}/v1` },
      "apiUrl",
      { recorded: `${ORIGIN}/v1`, match: "mismatch" },
    ],
    [
      "apiUrl with credentials is never shown with them",
      { apiUrl: "https://user:secret@host.test/?key=k" },
      "apiUrl",
      { recorded: "https://host.test/", match: "mismatch" },
    ],
    [
      "shape drifted",
      { shape: "s-2vcpu-4gb" },
      "shape",
      { recorded: "s-2vcpu-4gb", expected: "s-1vcpu-1gb", match: "mismatch" },
    ],
    [
      "rootfs null recorded, omitted in config",
      { rootfs: null },
      "rootfs",
      { recorded: null, expected: null, match: "match" },
    ],
    [
      "rootfs not recorded at all: the plugin's strict comparison expires it",
      { rootfs: undefined },
      "rootfs",
      { recorded: null, expected: null, match: "mismatch" },
    ],
    [
      "region recorded as a number",
      { region: 7 },
      "region",
      { recorded: "7", expected: null, match: "mismatch" },
    ],
    [
      "companyId recorded as an object",
      { companyId: { id: COMPANY } },
      "companyId",
      { recorded: "(an object)", match: "mismatch" },
    ],
  ])("%s", (_, overrides, field, expected) => {
    expect(evidenceOf(row({ metadata: meta(overrides) }))[field]).toMatchObject(expected);
  });

  describe("the marker is never shown in full", () => {
    it.each<[string, unknown, string | null, "match" | "mismatch"]>([
      ["a UUID shows its first 8 characters", MARKER, `${MARKER.slice(0, 8)}…`, "match"],
      ["a malformed marker is a mismatch", "not-a-uuid-marker-value", "not-a-uu…", "mismatch"],
      ["a short marker shows at most half of itself", "abcd", "ab…", "mismatch"],
      ["a missing marker", undefined, null, "mismatch"],
      ["a numeric marker", 12345, null, "mismatch"],
    ])("%s", (_, marker, recorded, match) => {
      const line = evidenceOf(row({ metadata: meta({ marker }) })).marker;
      expect(line).toEqual({ field: "marker", recorded, expected: null, match });
      if (typeof marker === "string")
        expect(
          JSON.stringify(ownershipEvidence(row({ metadata: meta({ marker }) }), environment())),
        ).not.toContain(marker);
    });
  });

  it.each<[string, unknown]>([
    ["a string", "junk"],
    ["an array", [meta()]],
    ["a date", new Date(0)],
  ])("compares nothing when the metadata is %s, not a plain object", (_, metadata) => {
    const lines = ownershipEvidence(row({ metadata }), environment());
    expect(lines.every((line) => line.match === "not-compared" && line.recorded === null)).toBe(true);
    expect(lines.find((line) => line.field === "companyId")?.expected).toBe(COMPANY);
  });

  it("checks the company against the lease row's own, as the plugin does, also for an instance-scoped environment", () => {
    const shared = environment({ companyId: null });
    expect(evidenceOf(row(), shared).companyId).toEqual({
      field: "companyId",
      recorded: COMPANY,
      expected: COMPANY,
      match: "match",
    });
    expect(evidenceOf(row({ metadata: meta({ companyId: OTHER_COMPANY }) }), shared).companyId).toEqual({
      field: "companyId",
      recorded: OTHER_COMPANY,
      expected: COMPANY,
      match: "mismatch",
    });
  });

  it("compares the provider, the row's company and the marker for an orphan row", () => {
    const matches = ownershipEvidence(row({ environmentId: null }), null).map((line) => [
      line.field,
      line.match,
    ]);
    expect(matches).toEqual([
      ["provider", "match"],
      ["companyId", "match"],
      ["environmentId", "not-compared"],
      ["apiUrl", "not-compared"],
      ["shape", "not-compared"],
      ["rootfs", "not-compared"],
      ["region", "not-compared"],
      ["marker", "match"],
    ]);
  });

  it("clips a 100 kB recorded value", () => {
    const line = evidenceOf(row({ metadata: meta({ shape: "s".repeat(100_000) }) })).shape;
    expect(line.recorded?.length).toBeLessThanOrEqual(201);
    expect(line.match).toBe("mismatch");
  });
});

/** Classifies one row as the reconciler would, for explanations. */
function classified(
  lease: LeaseRow,
  listings: SandboxListing[] = [okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "paused")])],
  env: Environment | null = environment(),
  others: LeaseRow[] = [],
): ClassifiedLease {
  const provider = observeProvider(lease, env, indexListings(listings));
  const verdict = classifyLease(lease, env, provider, { now: NOW, otherRowsOnSandbox: others });
  return { sourceId: "src", lease, environment: env, verdict, provider, sharedWith: others.map((o) => o.id) };
}

const running = (origin = ORIGIN) => [okListing(origin, "key", [sandbox(SANDBOX, "running")])];

describe("explainVerdict: what the verdict means and what to do", () => {
  it("says the example sentence for an apiUrl edit", () => {
    const lease = row({ metadata: meta({ apiUrl: OLD_ORIGIN }) });
    expect(explainVerdict(classified(lease, running(OLD_ORIGIN)))).toBe(
      'The API URL of environment "Production" was changed after this sandbox was acquired: Paperclip still releases it at the recorded URL, but will never resume it. Release it at the old API URL (https://old.example) if no run needs it.',
    );
  });

  it.each<[string, ClassifiedLease, RegExp]>([
    ["owned", classified(row()), /matches its environment.*paused\. Nothing needs doing\./],
    [
      "foreign-company",
      classified(row({ metadata: meta({ companyId: OTHER_COMPANY }) }), running()),
      /another company \("company-b"\) than the row's \("company-a"\).*refuse.*typing its sandbox id/,
    ],
    [
      "foreign-company, gone",
      classified(row({ status: "retained", metadata: meta({ companyId: OTHER_COMPANY }) }), [
        okListing(ORIGIN, "k", [sandbox(SANDBOX, "failed")]),
      ]),
      /another company.*already lists this sandbox as destroyed or failed/,
    ],
    [
      "foreign-company, not visible",
      classified(row({ status: "retained", metadata: meta({ companyId: OTHER_COMPANY }) }), [
        okListing(ORIGIN, "k", []),
      ]),
      /another company.*lists it at https:\/\/api\.sb\.createos\.sh; add the key/,
    ],
    [
      "foreign-environment",
      classified(row({ metadata: meta({ environmentId: OTHER_ENV_ID }) }), running()),
      /another environment \("env-staging"\) than "Production"/,
    ],
    [
      "foreign-environment, orphan row",
      classified(row({ environmentId: null }), running(), null),
      /no environment Leasekeeper can see/,
    ],
    [
      "foreign-provider",
      classified(row({ metadata: meta({ provider: "ssh" }) }), running()),
      /provider "ssh", not CreateOS/,
    ],
    [
      "api-url-changed, no key for the old origin",
      classified(row({ metadata: meta({ apiUrl: OLD_ORIGIN }) }), running()),
      /API URL of environment "Production" was changed.*Leasekeeper has no CreateOS key for https:\/\/old\.example, so nothing will be done/,
    ],
    [
      "metadata-missing, nested",
      classified(row({ metadata: { providerMetadata: meta() } }), running()),
      /nested under providerMetadata.*destroy it at https:\/\/api\.sb\.createos\.sh/,
    ],
    ["metadata-missing, null", classified(row({ metadata: null }), running()), /missing or not an object/],
    [
      "no-sandbox-id",
      classified(row({ status: "retained", providerLeaseId: null })),
      /records no sandbox id.*nothing needs doing/,
    ],
    [
      "environment-unread",
      classified(row({ environmentUnread: true }), undefined, null),
      /listed under environment "env-prod", which src could not read.*cannot be told\. If nobody needs it, destroy it at https:\/\/api\.sb\.createos\.sh by typing its sandbox id back\./,
    ],
  ])("covers ownership code %s", (_, lease, expected) => {
    expect(explainVerdict(lease)).toMatch(expected);
  });

  it("has a sentence for every ownership code", () => {
    const covered = new Set(
      [
        row(),
        row({ metadata: meta({ companyId: OTHER_COMPANY }) }),
        row({ metadata: meta({ environmentId: OTHER_ENV_ID }) }),
        row({ metadata: meta({ provider: "ssh" }) }),
        row({ metadata: meta({ apiUrl: OLD_ORIGIN }) }),
        row({ metadata: meta({ apiUrl: `${ORIGIN}/v1` }) }),
        row({ metadata: meta({ timeoutMs: 0 }) }),
        row({ metadata: null }),
        row({ providerLeaseId: null }),
      ]
        .flatMap((lease) => classified(lease).verdict.ownership)
        .concat(classified(row(), undefined, environment({ companyId: OTHER_COMPANY })).verdict.ownership)
        .concat(classified(row({ environmentUnread: true }), undefined, null).verdict.ownership),
    );
    expect([...covered].sort()).toEqual([...OWNERSHIP_CODES].sort());
  });

  it.each<[string, ClassifiedLease, RegExp]>([
    [
      "stale-config (drift)",
      classified(row({ metadata: meta({ shape: "s-2vcpu-4gb", region: "eu" }) })),
      /shape, region of environment "Production" changed.*next resume will expire it.*Release it/,
    ],
    [
      "stale-config (marker)",
      classified(row({ metadata: meta({ marker: "wrong" }) })),
      /workspace marker is missing or malformed/,
    ],
    [
      "gone under a row not yet over",
      classified(row({ status: "retained" }), [okListing(ORIGIN, "key", [sandbox(SANDBOX, "destroyed")])]),
      /lists this sandbox as destroyed at https:\/\/api\.sb\.createos\.sh, so nothing of it is left running\. The row is history/,
    ],
    [
      "leaking, lease released",
      classified(row(), running()),
      /shows the sandbox running, billing compute, although the lease is released\. Release it to stop the billing\./,
    ],
    [
      "leaking, cleanup failed",
      classified(row({ cleanupStatus: "failed" }), running()),
      /cleanup of this lease failed/,
    ],
    [
      "unknown, no credential",
      classified(row(), []),
      /no CreateOS key for https:\/\/api\.sb\.createos\.sh.*never taken for gone/,
    ],
    [
      "unknown, 401",
      classified(row(), [failedListing(ORIGIN, "k", "unauthorized")]),
      /rejected the key for .* as not valid/,
    ],
    ["unknown, timeout", classified(row(), [failedListing(ORIGIN, "k", "timeout")]), /timed out/],
    [
      "unknown, invalid URL",
      classified(
        row({ metadata: meta({ apiUrl: "http://remote.test" }) }),
        [],
        environment({ config: { apiUrl: "http://remote.test" } }),
      ),
      /breaks CreateOS's URL rule/,
    ],
    [
      "unknown, unrecognized status",
      classified(row(), [okListing(ORIGIN, "k", [sandbox(SANDBOX, "hibernating")])]),
      /status Leasekeeper does not know.*"hibernating"/,
    ],
    [
      "not-visible",
      classified(row({ status: "retained" }), [okListing(ORIGIN, "k", [])]),
      /purged, or it belongs to another account.*Add that account's key/,
    ],
    [
      "ok, in use",
      classified(row({ status: "active", heartbeatRunId: "run-1" }), running()),
      /run is using this lease.*explicit override/,
    ],
    [
      "ok, host cleanup",
      classified(
        row({
          status: "pending_cleanup",
          metadata: meta({
            pendingCleanupInFlight: true,
            pendingCleanupLeaseExpiresAtMs: NOW.getTime() + 1000,
          }),
        }),
      ),
      /sweep holds a claim on this lease until 2026-09-10T12:00:01\.000Z/,
    ],
    [
      "ok, pending_cleanup between sweeps, with its retry count",
      classified(row({ status: "pending_cleanup", metadata: meta({ pendingCleanupRetryAttempts: 3 }) })),
      /sweep will retry this lease \(it has tried 3 times\).*unless the retries keep failing/,
    ],
    [
      "ok, active with no run but an issue left behind",
      classified(row({ status: "active", issueId: "issue-1" }), running()),
      /no run holds it.*Let Paperclip act first/,
    ],
    [
      "ok, a login session",
      classified(row({ status: "active" }), running()),
      /login session holds this lease.*acting on it needs an explicit override/,
    ],
    [
      "ok, shared with an active row",
      classified(row(), undefined, undefined, [row({ status: "active" })]),
      /Another lease on this sandbox is active or retained/,
    ],
  ])("explains %s", (_, lease, expected) => {
    expect(explainVerdict(lease)).toMatch(expected);
  });

  it("has a distinct explanation of at most two sentences for every headline", () => {
    const samples = [
      classified(row(), [okListing(ORIGIN, "k", [sandbox(SANDBOX, "destroyed")])]),
      classified(row({ metadata: meta({ companyId: OTHER_COMPANY }) })),
      classified(row({ metadata: null })),
      classified(row(), running()),
      classified(row(), []),
      classified(row()),
    ];
    expect(samples.map((sample) => sample.verdict.headline)).toEqual([...HEADLINES]);
    const sentences = samples.map(explainVerdict);
    expect(new Set(sentences).size).toBe(samples.length);
    for (const sentence of sentences) expect(sentence.split(/(?<=\.)\s/).length).toBeLessThanOrEqual(2);
  });

  it.each<[string, ClassifiedLease, RegExp]>([
    [
      "released, sandbox destroyed",
      classified(row(), [okListing(ORIGIN, "k", [sandbox(SANDBOX, "destroyed")])]),
      /lease is released and CreateOS lists its sandbox as destroyed.*history\. Nothing needs doing\./,
    ],
    [
      "expired, no sandbox recorded",
      classified(row({ status: "expired", providerLeaseId: null, metadata: { expired: true } })),
      /lease is expired and records no sandbox.*history/,
    ],
    [
      "failed, purged",
      classified(row({ status: "failed" }), [okListing(ORIGIN, "k", [])]),
      /lease is failed and no account at https:\/\/api\.sb\.createos\.sh lists its sandbox any more/,
    ],
  ])("explains a closed row: %s", (_, lease, expected) => {
    expect(lease.verdict.headline).toBe("closed");
    expect(explainVerdict(lease)).toMatch(expected);
  });

  it("never shows the marker or a URL's credentials", () => {
    const lease = row({
      metadata: meta({ companyId: OTHER_COMPANY, apiUrl: "https://user:pw@host.test/?key=k" }),
    });
    const text = explainVerdict(classified(lease, running()));
    expect(text).not.toContain(MARKER);
    expect(text).not.toContain("pw");
  });
});
