import { describe, expect, it } from "vitest";
import type { Headline } from "./codes.js";
import type { ClassifiedLease, ProviderSandbox, SandboxListing, SourceSnapshot } from "./inventory.js";
import type { LeaseRow } from "./paperclip.js";
import { reconcile, SHARED_WITH_LIMIT, summarizeCounts } from "./reconcile.js";
import {
  environment,
  failedListing,
  meta,
  NOW,
  OLD_ORIGIN,
  ORIGIN,
  OTHER_COMPANY,
  okListing,
  row,
  sandbox,
} from "./test-fixtures.js";

/**
 * A small world: two sources (a Paperclip instance and a ledger file), two origins (the current one and
 * the one an environment used before its apiUrl was edited), two credentials at the current origin (one
 * of them failing), untracked sandboxes, and a row whose metadata is junk.
 */
const LAB = environment({ id: "env-lab", companyId: "company-a", name: "lab" });
const PROD = environment({ id: "env-prod", companyId: "company-a", name: "Production" });
const OTHER = environment({ id: "env-x", companyId: OTHER_COMPANY, name: "Another company's" });

const lease = (id: string, sandboxId: string | null, overrides: Partial<LeaseRow> = {}) =>
  row({ id, providerLeaseId: sandboxId, ...overrides });

const paperclip: SourceSnapshot = {
  sourceId: "paperclip",
  environments: [PROD, LAB],
  leases: [
    lease("warm", "sbx_warm"),
    lease("leaky", "sbx_leaky", { cleanupStatus: "failed" }),
    lease("moved", "sbx_moved", { metadata: meta({ apiUrl: `${OLD_ORIGIN}/v1` }) }),
    lease("junk", "sbx_junk", { metadata: "{not json" }),
    lease("old-run", "sbx_shared", { status: "released" }),
    lease("new-run", "sbx_shared", { status: "active", heartbeatRunId: "run-9", releasedAt: null }),
    lease("lab-copy", "sbx_lab", { environmentId: "env-lab" }),
    lease("no-id", null, { status: "failed" }),
    lease("orphan", "sbx_orphan", { environmentId: null, status: "pending_cleanup" }),
    lease("ghost", "sbx_ghost"),
  ],
  companies: [],
  problems: [{ source: "paperclip", index: 11, message: "status: expected string" }],
  gaps: [],
};

const ledger: SourceSnapshot = {
  sourceId: "ledger",
  environments: [OTHER],
  leases: [
    lease("theirs", "sbx_theirs", {
      environmentId: "env-x",
      companyId: OTHER_COMPANY,
      metadata: meta({ companyId: OTHER_COMPANY, environmentId: "env-x" }),
    }),
    lease("elsewhere", "sbx_warm", { environmentId: "env-prod" }),
  ],
  companies: [],
  problems: [],
  gaps: [],
};

const listings: SandboxListing[] = [
  okListing(ORIGIN, "key-a", [
    sandbox("sbx_warm", "paused"),
    sandbox("sbx_leaky", "running"),
    sandbox("sbx_junk", "running"),
    sandbox("sbx_shared", "running"),
    sandbox("sbx_lab", "running"),
    sandbox("sbx_orphan", "running"),
    sandbox("sbx_theirs", "paused"),
    sandbox("sbx_moved", "destroyed"),
    sandbox("sbx_lost", "running"),
    sandbox("sbx_dead", "destroyed"),
    sandbox("sbx_failed", "failed"),
  ]),
  failedListing(ORIGIN, "key-b", "unauthorized"),
  okListing(`${OLD_ORIGIN}/v1`, "key-old", [
    sandbox("sbx_moved", "running"),
    sandbox("sbx_old_orphan", "creating"),
  ]),
];

const inventory = reconcile({ snapshots: [paperclip, ledger], listings, now: NOW, requests: 3 });
const byId = (id: string): ClassifiedLease => {
  const found = inventory.leases.find((classified) => classified.lease.id === id);
  if (found === undefined) throw new Error(`no lease ${id} in the inventory`);
  return found;
};

describe("reconcile: a small world, row by row", () => {
  it.each<[string, string, Headline, string, string[]]>([
    ["warm paused reusable lease (a ledger row names it too)", "warm", "ok", "paused", ["shared"]],
    ["cleanup failed, sandbox running", "leaky", "leaking", "running", ["leaking"]],
    [
      "apiUrl edited: read at the old origin (recorded with /v1); stale beats leaking",
      "moved",
      "stale",
      "running",
      ["leaking"],
    ],
    [
      "malformed metadata: metadata-missing, read at the environment's origin",
      "junk",
      "stale",
      "running",
      ["leaking"],
    ],
    ["released row behind an active one", "old-run", "ok", "running", ["shared"]],
    ["the active one", "new-run", "ok", "running", ["in-use", "shared"]],
    [
      "a row of env-prod listed under env-lab; foreign beats leaking",
      "lab-copy",
      "foreign",
      "running",
      ["leaking"],
    ],
    ["a failed row that records no sandbox is history", "no-id", "closed", "unknown", []],
    ["orphan row", "orphan", "foreign", "running", []],
    ["absent from the OK listing, the other key failed: unknown", "ghost", "unknown", "unknown", []],
    ["another company's row in the ledger, listed under its own environment", "theirs", "ok", "paused", []],
  ])("%s", (_, id, headline, provider, flags) => {
    const classified = byId(id);
    expect(classified.verdict.headline).toBe(headline);
    expect(classified.verdict.provider).toBe(provider);
    expect(classified.verdict.flags).toEqual(flags);
  });

  it("joins each row with the environment of its own source", () => {
    expect(byId("warm").environment?.id).toBe("env-prod");
    expect(byId("lab-copy").environment?.id).toBe("env-lab");
    expect(byId("orphan").environment).toBeNull();
    expect(byId("theirs").environment?.companyId).toBe(OTHER_COMPANY);
  });

  it("a row naming an environment its source does not have is an orphan", () => {
    expect(byId("elsewhere").environment).toBeNull();
    expect(byId("elsewhere").verdict.ownership).toEqual(["foreign-environment"]);
  });

  it("keeps the provider evidence: origin, where it came from, the credential", () => {
    expect(byId("moved").provider).toMatchObject({
      origin: OLD_ORIGIN,
      originFrom: "lease-metadata",
      credential: "key-old",
    });
    expect(byId("junk").provider).toMatchObject({ origin: ORIGIN, originFrom: "environment" });
    expect(byId("ghost").provider).toMatchObject({ unknownReason: "unauthorized" });
  });

  it("names the other rows on a shared sandbox, across sources", () => {
    expect(byId("old-run").sharedWith).toEqual(["new-run"]);
    expect(byId("new-run").sharedWith).toEqual(["old-run"]);
    expect(byId("warm").sharedWith).toEqual(["elsewhere"]);
    expect(byId("leaky").sharedWith).toEqual([]);
    expect(byId("old-run").verdict.overridableActions).toEqual(["release", "destroy"]);
  });

  it("lists untracked sandboxes: live, listed, named by no row", () => {
    expect(
      inventory.untracked.map(({ sandboxId, origin, credential }) => [sandboxId, origin, credential]),
    ).toEqual([
      ["sbx_lost", ORIGIN, "key-a"],
      ["sbx_old_orphan", OLD_ORIGIN, "key-old"],
    ]);
  });

  it("counts headlines per environment, sorted by company then name", () => {
    expect(
      inventory.environments.map((summary) => [summary.companyId, summary.name, summary.counts]),
    ).toEqual([
      ["company-a", "lab", { closed: 0, foreign: 1, stale: 0, leaking: 0, unknown: 0, ok: 0 }],
      ["company-a", "Production", { closed: 1, foreign: 0, stale: 2, leaking: 1, unknown: 1, ok: 3 }],
      [
        OTHER_COMPANY,
        "Another company's",
        { closed: 0, foreign: 0, stale: 0, leaking: 0, unknown: 0, ok: 1 },
      ],
    ]);
  });

  it("reports each listing's health with normalised origins", () => {
    expect(inventory.origins).toEqual([
      { origin: ORIGIN, credential: "key-a", ok: true, reason: null, httpStatus: null, sandboxCount: 11 },
      {
        origin: ORIGIN,
        credential: "key-b",
        ok: false,
        reason: "unauthorized",
        httpStatus: null,
        sandboxCount: 0,
      },
      {
        origin: OLD_ORIGIN,
        credential: "key-old",
        ok: true,
        reason: null,
        httpStatus: null,
        sandboxCount: 2,
      },
    ]);
  });

  it("passes problems, the request count and the time through", () => {
    expect(inventory.problems).toEqual(paperclip.problems);
    expect(inventory.requests).toBe(3);
    expect(inventory.generatedAt).toBe(NOW.toISOString());
    expect(inventory.leases).toHaveLength(12);
  });

  it("summarizeCounts adds up every headline", () => {
    expect(summarizeCounts(inventory.leases)).toEqual({
      closed: 1,
      foreign: 3,
      stale: 2,
      leaking: 1,
      unknown: 1,
      ok: 4,
    });
  });
});

describe("reconcile: untracked edge cases", () => {
  it("does not call a sandbox untracked when a row with an unreadable origin names it", () => {
    const snapshot: SourceSnapshot = {
      sourceId: "s",
      environments: [PROD],
      leases: [lease("bad-url", "sbx_1", { metadata: meta({ apiUrl: "http://remote.test" }) })],
      companies: [],
      problems: [],
      gaps: [],
    };
    const result = reconcile({
      snapshots: [snapshot],
      listings: [okListing(ORIGIN, "k", [sandbox("sbx_1", "running")])],
      now: NOW,
      requests: 1,
    });
    expect(result.untracked).toEqual([]);
  });

  it("lists a sandbox seen by two keys at one origin once", () => {
    const listed = [sandbox("sbx_lost", "running")];
    const result = reconcile({
      snapshots: [],
      listings: [okListing(ORIGIN, "k1", listed), okListing(ORIGIN, "k2", listed)],
      now: NOW,
      requests: 2,
    });
    expect(result.untracked.map((u) => u.credential)).toEqual(["k1"]);
  });

  it("does not call a sandbox untracked at a second API URL of the same control plane when a row names it", () => {
    // One control plane answering at two URLs (a renamed domain) lists the same sandboxes at both.
    const both = [sandbox("sbx_named", "running"), sandbox("sbx_orphan", "running")];
    const result = reconcile({
      snapshots: [
        {
          sourceId: "s",
          environments: [PROD],
          leases: [lease("named", "sbx_named")],
          companies: [],
          problems: [],
          gaps: [],
        },
      ],
      listings: [okListing(ORIGIN, "current", both), okListing(OLD_ORIGIN, "legacy", both)],
      now: NOW,
      requests: 2,
    });
    expect(result.untracked.map(({ sandboxId, credential }) => [sandboxId, credential])).toEqual([
      ["sbx_orphan", "current"],
    ]);
  });

  it("counts a lease read from two sources once, not as shared with itself", () => {
    // Each source parses its own copy: two objects, one lease id.
    const result = reconcile({
      snapshots: [
        {
          sourceId: "a",
          environments: [PROD],
          leases: [lease("dup", "sbx_dup")],
          companies: [],
          problems: [],
          gaps: [],
        },
        {
          sourceId: "b",
          environments: [PROD],
          leases: [lease("dup", "sbx_dup")],
          companies: [],
          problems: [],
          gaps: [],
        },
      ],
      listings: [okListing(ORIGIN, "k", [sandbox("sbx_dup", "paused")])],
      now: NOW,
      requests: 1,
    });
    expect(result.leases.map((c) => [c.sharedWith, c.sharedWithCount, c.verdict.flags])).toEqual([
      [[], undefined, []],
      [[], undefined, []],
    ]);
  });

  it("names only the other lease when one lease is read twice and another shares its sandbox", () => {
    const result = reconcile({
      snapshots: [
        {
          sourceId: "a",
          environments: [PROD],
          leases: [lease("dup", "sbx_dup"), lease("next", "sbx_dup")],
          companies: [],
          problems: [],
          gaps: [],
        },
        {
          sourceId: "b",
          environments: [PROD],
          leases: [lease("dup", "sbx_dup")],
          companies: [],
          problems: [],
          gaps: [],
        },
      ],
      listings: [okListing(ORIGIN, "k", [sandbox("sbx_dup", "paused")])],
      now: NOW,
      requests: 1,
    });
    expect(result.leases.map((c) => [c.lease.id, c.sharedWith, c.sharedWithCount])).toEqual([
      ["dup", ["next"], undefined],
      ["next", ["dup"], undefined],
      ["dup", ["next"], undefined],
    ]);
  });
});

describe("reconcile: scale", () => {
  /** n rows over two environments, half at each of two origins, with a listing per origin. */
  function world(n: number): { snapshots: SourceSnapshot[]; listings: SandboxListing[] } {
    const leases: LeaseRow[] = [];
    const atCurrent: ProviderSandbox[] = [];
    const atOld: ProviderSandbox[] = [];
    for (let i = 0; i < n; i += 1) {
      const old = i % 2 === 1;
      const id = `sbx_${i}`;
      leases.push(
        row({
          id: `lease-${i}`,
          providerLeaseId: id,
          environmentId: i % 3 === 0 ? "env-lab" : "env-prod",
          status: i % 5 === 0 ? "active" : "released",
          heartbeatRunId: i % 10 === 0 ? `run-${i}` : null,
          metadata: meta({
            apiUrl: old ? OLD_ORIGIN : ORIGIN,
            environmentId: i % 3 === 0 ? "env-lab" : "env-prod",
          }),
        }),
      );
      (old ? atOld : atCurrent).push(sandbox(id, i % 7 === 0 ? "running" : "paused"));
    }
    for (let i = 0; i < n / 10; i += 1) atCurrent.push(sandbox(`sbx_untracked_${i}`, "running"));
    return {
      snapshots: [
        { sourceId: "s", environments: [PROD, LAB], leases, companies: [], problems: [], gaps: [] },
      ],
      listings: [okListing(ORIGIN, "k1", atCurrent), okListing(OLD_ORIGIN, "k2", atOld)],
    };
  }

  // Speed is measured by `npm run bench -- inventory`, not asserted here: the machines are shared.
  it("judges 20,000 rows against 2 listings, each row once, with the untracked listed", () => {
    const result = reconcile({ ...world(20_000), now: NOW, requests: 0 });
    expect(result.leases).toHaveLength(20_000);
    expect(new Set(result.leases.map((lease) => lease.lease.id)).size).toBe(20_000);
    expect(result.untracked).toHaveLength(2_000);
  });

  it("stays linear when 20,000 rows name one reusable sandbox, listing at most SHARED_WITH_LIMIT others", () => {
    const leases = Array.from({ length: 20_000 }, (_, i) =>
      row({
        id: `run-${i}`,
        status: i === 19_999 ? "active" : "released",
        heartbeatRunId: i === 19_999 ? "run" : null,
      }),
    );
    const result = reconcile({
      snapshots: [{ sourceId: "s", environments: [PROD], leases, companies: [], problems: [], gaps: [] }],
      listings: [okListing(ORIGIN, "k", [sandbox("sbx_1", "running")])],
      now: NOW,
      requests: 0,
    });
    const first = result.leases[0];
    expect(first?.sharedWith).toHaveLength(SHARED_WITH_LIMIT);
    expect(first?.sharedWith[0]).toBe("run-19999");
    expect(first?.sharedWithCount).toBe(19_999);
    // The one active row, last in the input, still guards every released row and keeps them from leaking.
    expect(first?.verdict.overridableActions).toEqual(["release", "destroy"]);
    expect(first?.verdict.flags).toEqual(["shared"]);
  });
});

describe("reconcile: incomplete sources never make orphans", () => {
  const listed = [
    okListing(ORIGIN, "k", [sandbox("sbx_named", "running"), sandbox("sbx_lost", "running")]),
    okListing(OLD_ORIGIN, "k-old", [sandbox("sbx_old_lost", "running")]),
  ];
  const snapshot = (gaps: SourceSnapshot["gaps"]): SourceSnapshot => ({
    sourceId: "paperclip",
    environments: [PROD],
    leases: [lease("named", "sbx_named")],
    companies: [],
    problems: [],
    gaps,
  });
  const run = (gaps: SourceSnapshot["gaps"]) =>
    reconcile({ snapshots: [snapshot(gaps)], listings: listed, now: NOW, requests: 2 });

  it("calls a sandbox untracked when every source loaded completely", () => {
    const result = run([]);
    expect(result.untracked.map((u) => u.sandboxId)).toEqual(["sbx_lost", "sbx_old_lost"]);
    expect(result.untrackedUncertain).toEqual([]);
  });

  it("a gap at one origin makes only that origin's unnamed sandboxes uncertain, with the reason", () => {
    const gap = {
      source: "paperclip",
      origin: `${ORIGIN}/v1`,
      message: 'environment "Staging" config is hidden',
    };
    const result = run([gap]);
    expect(result.untracked.map((u) => u.sandboxId)).toEqual(["sbx_old_lost"]);
    expect(result.untrackedUncertain.map((u) => [u.sandboxId, u.origin, u.reason])).toEqual([
      [
        "sbx_lost",
        ORIGIN,
        'cannot tell: sources incomplete — paperclip: environment "Staging" config is hidden',
      ],
    ]);
    expect(result.gaps).toEqual([gap]);
  });

  it("a gap that could be at any origin makes every unnamed sandbox uncertain", () => {
    const result = run([
      { source: "paperclip", origin: null, message: "leases of env-x could not be listed" },
    ]);
    expect(result.untracked).toEqual([]);
    expect(result.untrackedUncertain.map((u) => u.sandboxId)).toEqual(["sbx_lost", "sbx_old_lost"]);
  });

  it("a named sandbox is never uncertain, gap or not", () => {
    const result = run([{ source: "paperclip", origin: null, message: "x" }]);
    expect(result.untrackedUncertain.map((u) => u.sandboxId)).not.toContain("sbx_named");
  });

  it("merges the companies every source names, the first name winning", () => {
    const result = reconcile({
      snapshots: [
        { ...snapshot([]), companies: [{ id: "c1", name: "Acme" }] },
        {
          ...snapshot([]),
          sourceId: "ledger",
          companies: [
            { id: "c1", name: "Other" },
            { id: "c2", name: "Beta" },
          ],
        },
      ],
      listings: [],
      now: NOW,
      requests: 0,
    });
    expect(result.companies).toEqual([
      { id: "c1", name: "Acme" },
      { id: "c2", name: "Beta" },
    ]);
  });
});
