import { describe, expect, it } from "vitest";
import {
  emptyLeaseColumns,
  encodeInventory,
  type InventoryView,
  MAX_PROBLEMS_IN_VIEW,
  unreadOfGaps,
} from "../../../../shared/contract";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture";
import type { SourceGap } from "../../../../shared/domain/paperclip";
import { environmentKey } from "../../state/environment-key";
import { buildTree, SHARED_ENVIRONMENTS, unlistedEnvironmentNotes, untrackedNodes } from "./build-tree";

const counts = (foreign: number, ok: number) => ({
  closed: 0,
  foreign,
  stale: 0,
  leaking: 0,
  unknown: 0,
  ok,
});

const view = {
  version: 3,
  generatedAt: "2025-06-01T00:00:00Z",
  requests: 0,
  environmentId: null,
  companies: ["co-b", "co-a"],
  origins: [],
  statuses: [],
  policies: [],
  shapes: [],
  leases: emptyLeaseColumns(),
  history: { count: 0, byEnvironment: [0, 0, 0, 0] },
  originHealth: [],
  problems: [],
  problemCount: 0,
  environments: [
    { sourceId: "s", environmentId: "e1", company: 0, name: "Quiet", known: true, counts: counts(0, 5) },
    { sourceId: "s", environmentId: "e2", company: 0, name: "Noisy", known: true, counts: counts(3, 1) },
    { sourceId: "s", environmentId: "e3", company: 1, name: "Alpha", known: true, counts: counts(1, 0) },
    { sourceId: "s", environmentId: null, company: -1, name: "", known: false, counts: counts(1, 0) },
  ],
  untracked: [
    { credential: "ops", origin: "https://b", count: 2 },
    { credential: "legacy", origin: "https://a", count: 5 },
  ],
  companyNames: [null, null],
  untrackedUncertain: [],
  gaps: [],
  gapCount: 0,
  unread: {
    byEnvironment: [null, null, null, null],
    namedElsewhere: 0,
    anyEnvironment: [],
    unlistedEnvironments: [],
  },
  actedOn: [],
} satisfies InventoryView;

/** The view with these gaps, and what main tells of them. */
const withGaps = (shown: InventoryView, gaps: InventoryView["gaps"]): InventoryView => ({
  ...shown,
  gaps,
  gapCount: gaps.length,
  unread: unreadOfGaps(gaps, shown.environments),
});

describe("buildTree", () => {
  const tree = buildTree(view);

  it("groups environments under their company, companies by id", () => {
    expect(tree.companies.map((company) => company.companyId)).toEqual([SHARED_ENVIRONMENTS, "co-a", "co-b"]);
  });

  it("puts the most flagged environment first", () => {
    const coB = tree.companies.find((company) => company.companyId === "co-b")!;
    expect(coB.environments.map((environment) => environment.name)).toEqual(["Noisy", "Quiet"]);
    expect(coB.environments[0]).toMatchObject({ total: 4, flagged: 3 });
  });

  it("totals every headline for the triage view", () => {
    expect(tree.totals).toEqual({ closed: 0, foreign: 5, stale: 0, leaking: 0, unknown: 0, ok: 6 });
  });

  it("names a company where a source gave its name, sorting by the name shown", () => {
    const named = buildTree({ ...view, companyNames: [null, "Acme"] });
    expect(named.companies.map((company) => [company.companyId, company.name])).toEqual([
      [SHARED_ENVIRONMENTS, "Shared by every company"],
      [view.companies[1], "Acme"],
      [view.companies[0], null],
    ]);
  });

  it("counts closed rows in the totals but never as flagged", () => {
    const withHistory = {
      ...view,
      environments: [{ ...view.environments[0]!, counts: { ...counts(0, 1), closed: 7 } }],
    };
    const [company] = buildTree(withHistory).companies;
    expect(company!.environments[0]).toMatchObject({ total: 8, flagged: 0 });
  });

  it("keeps orphan rows' environment, marked unknown", () => {
    expect(tree.companies[0]!.environments[0]).toMatchObject({ known: false, environmentId: null });
  });

  it("marks an environment whose leases a source could not read, with why, and no other", () => {
    const gap = {
      source: "s",
      origin: null,
      message: 'The leases of environment "Quiet" could not be read.',
    };
    const read = buildTree(
      withGaps(view, [
        { ...gap, environmentId: "e1" },
        { ...gap, source: "other" },
      ]),
    );
    const environments = read.companies.flatMap((company) => company.environments);
    expect(environments.find((environment) => environment.environmentId === "e1")?.unread).toEqual({
      because: gap.message,
      scope: "environment",
    });
    expect(environments.filter((environment) => environment.unread !== null)).toHaveLength(1);
  });
});

describe("untrackedNodes", () => {
  it("lists each account once, by credential", () => {
    expect(untrackedNodes(view).map((node) => node.credential)).toEqual(["legacy", "ops"]);
  });

  it("keeps an account the last scan could not list, marked failed, instead of dropping it", () => {
    const failing = {
      ...view,
      untracked: [],
      untrackedUncertain: [],
      originHealth: [
        {
          origin: "https://api.a",
          credential: "ops",
          ok: false,
          reason: "network" as const,
          httpStatus: null,
          sandboxCount: 0,
        },
      ],
    };
    expect(untrackedNodes(failing)).toEqual([
      { credential: "ops", origin: "https://api.a", count: 0, uncertain: 0, failed: true, listed: false },
    ]);
  });

  it("marks an account listed only where the inventory records its listing succeeded", () => {
    const health = (credential: string, origin: string, ok: boolean) => ({
      origin,
      credential,
      ok,
      reason: null,
      httpStatus: null,
      sandboxCount: 0,
    });
    const partly = {
      ...view,
      untracked: [
        { credential: "ops", origin: "https://a", count: 0 },
        { credential: "legacy", origin: "https://b", count: 0 },
      ],
      untrackedUncertain: [{ credential: "ops", origin: "https://a", count: 4, reason: "source incomplete" }],
      originHealth: [health("ops", "https://a", true)],
    };
    expect(untrackedNodes(partly)).toEqual([
      { credential: "legacy", origin: "https://b", count: 0, uncertain: 0, failed: false, listed: false },
      { credential: "ops", origin: "https://a", count: 0, uncertain: 4, failed: false, listed: true },
    ]);
  });

  it("lists an account the config names and the inventory holds no listing of, unlisted", () => {
    const health = (credential: string, origin: string, ok: boolean) => ({
      origin,
      credential,
      ok,
      reason: ok ? null : ("network" as const),
      httpStatus: null,
      sandboxCount: 0,
    });
    const shown = {
      ...view,
      untracked: [],
      untrackedUncertain: [],
      originHealth: [health("ops", "https://a", true), health("ops", "https://b", false)],
    };
    const configured = [
      { name: "ops", origin: "https://a/" },
      { name: "ops", origin: "https://b" },
      { name: "added", origin: "https://a/v1" },
    ];
    // "ops" was listed at a (none untracked: no entry) and failed at b; "added" was never listed.
    expect(untrackedNodes(shown, configured)).toEqual([
      { credential: "added", origin: "https://a", count: 0, uncertain: 0, failed: false, listed: false },
      { credential: "ops", origin: "https://b", count: 0, uncertain: 0, failed: true, listed: false },
    ]);
  });
});

describe("unlistedEnvironmentNotes", () => {
  const gap = (source: string, message: string, unlistedOnly?: true) => ({
    source,
    origin: null,
    message,
    ...(unlistedOnly ? { unlistedOnly } : {}),
  });

  it("names each source a gap says may hold environments not listed, once, with its first words", () => {
    const gaps = [
      gap("paperclip", "Paperclip listed no company for this key", true),
      gap("paperclip", "environments[3] could not be read", true),
      gap("s", "leases[2] could not be read"),
      { ...gap("s", "HTTP 503"), environmentId: "e1" },
    ];
    expect(unlistedEnvironmentNotes(withGaps(view, gaps))).toEqual([
      { source: "paperclip", message: "Paperclip listed no company for this key", count: 2 },
    ]);
  });

  it("names none while no gap says so", () => {
    expect(unlistedEnvironmentNotes(view)).toEqual([]);
  });
});

describe("buildTree's totals with a part not read", () => {
  const gap = { source: "s", origin: null, message: "leases[3] could not be read", environmentId: "e3" };

  it("says a company's total is not whole when one of its environments was not read", () => {
    const tree = buildTree(withGaps(view, [gap]));
    const company = (id: string) => tree.companies.find((node) => node.companyId === id)!;
    expect(company("co-a")).toMatchObject({ total: 1, complete: false });
    // The other companies' environments were all read: their totals stand.
    expect(company("co-b")).toMatchObject({ total: 9, complete: true });
    expect(tree.totalsComplete).toBe(false);
  });

  it("says a company's total is not whole when only the count of one of its environments is not known", () => {
    const tree = buildTree(
      withGaps(view, [{ source: "s", origin: null, message: "leases[3] could not be read" }]),
    );
    expect(tree.companies.every((company) => !company.complete)).toBe(true);
    expect(tree.totalsComplete).toBe(false);
  });

  it("says the totals are not whole when a gap names an environment the view has no entry for", () => {
    const tree = buildTree(withGaps(view, [{ ...gap, environmentId: "e-not-listed" }]));
    expect(tree.companies.every((company) => company.complete)).toBe(true);
    expect(tree.totalsComplete).toBe(false);
  });

  it("says the totals are not whole when a source may hold environments not shown", () => {
    const tree = buildTree(
      withGaps(view, [
        { source: "s", origin: null, message: "environments[1] could not be read", unlistedOnly: true },
      ]),
    );
    expect(tree.companies.every((company) => company.complete)).toBe(true);
    expect(tree.totalsComplete).toBe(false);
  });

  it("says every total is whole when nothing was left unread", () => {
    const tree = buildTree(view);
    expect(tree.companies.every((company) => company.complete)).toBe(true);
    expect(tree.totalsComplete).toBe(true);
  });
});

describe("buildTree with a gap naming no environment", () => {
  it("shows each environment of that source as not read, and keeps the counts of the others", () => {
    const other = { ...view.environments[0]!, sourceId: "t", environmentId: "e9", name: "Other" };
    const tree = buildTree(
      withGaps(
        {
          ...view,
          environments: [...view.environments, other],
          history: { count: 0, byEnvironment: [0, 0, 0, 0, 0] },
        },
        [{ source: "s", origin: null, message: "leases[2] could not be read" }],
      ),
    );
    const nodes = tree.companies.flatMap((company) => company.environments);
    expect(nodes.filter((node) => node.unread !== null).map((node) => node.environmentId)).toEqual(
      expect.arrayContaining(["e1", "e2", "e3", null]),
    );
    expect(nodes.find((node) => node.environmentId === "e9")?.unread).toBeNull();
  });

  it("says of those environments that only their count is not known: their leases were read", () => {
    const tree = buildTree(
      withGaps(view, [{ source: "s", origin: null, message: "leases[2] could not be read" }]),
    );
    const nodes = tree.companies.flatMap((company) => company.environments);
    expect(nodes.map((node) => node.unread?.scope)).toEqual(nodes.map(() => "any-environment"));
  });
});

describe("buildTree past the gaps the view lists", () => {
  // The view lists the first MAX_PROBLEMS_IN_VIEW gaps; what is unread is told of every one.
  const inventory = makeInventoryFixture({ rows: 40, environments: 4, seed: 5 });
  const [first, second, third] = inventory.environments;
  const source = first!.sourceId;
  const gap = (at: number, fields: Partial<SourceGap> = {}): SourceGap => ({
    source,
    origin: null,
    message: `leases[${at}] could not be read`,
    ...fields,
  });
  const before = Array.from({ length: MAX_PROBLEMS_IN_VIEW }, (_, at) =>
    gap(at, { environmentId: first!.environmentId! }),
  );
  const nodesOf = (gaps: SourceGap[]) =>
    buildTree(encodeInventory({ ...inventory, gaps }, { leaveOutHistory: true })).companies.flatMap(
      (company) => company.environments,
    );
  // The fixture lists some environments under a second source too: each is found under the gaps' source.
  const nodeOf = (nodes: ReturnType<typeof nodesOf>, environmentId: string | null) =>
    nodes.find((node) => node.key === environmentKey(source, environmentId))!;

  it("marks an environment only a gap after them names, and no environment no gap names", () => {
    const nodes = nodesOf([...before, gap(MAX_PROBLEMS_IN_VIEW, { environmentId: second!.environmentId! })]);
    expect(nodeOf(nodes, second!.environmentId).unread).not.toBeNull();
    expect(nodeOf(nodes, second!.environmentId).unread?.because).toBe("leases[200] could not be read");
    expect(nodeOf(nodes, first!.environmentId).unread?.because).toBe("leases[0] could not be read");
    expect(nodeOf(nodes, third!.environmentId).unread).toBeNull();
  });

  it("takes a gap after them naming no environment as every environment of its source uncounted", () => {
    const nodes = nodesOf([...before, gap(MAX_PROBLEMS_IN_VIEW)]);
    expect(nodeOf(nodes, third!.environmentId).unread).toMatchObject({
      because: expect.stringMatching(/^leases\[200\] could not be read; it names no environment/),
    });
  });

  it("names a source whose gaps may hide environments not listed, counting every one", () => {
    const unlisted = Array.from({ length: MAX_PROBLEMS_IN_VIEW + 1 }, (_, at) =>
      gap(at, { message: `environments[${at}] could not be read`, unlistedOnly: true }),
    );
    const view = encodeInventory({ ...inventory, gaps: [...before, ...unlisted] }, { leaveOutHistory: true });
    expect(unlistedEnvironmentNotes(view)).toEqual([
      { source, message: "environments[0] could not be read", count: MAX_PROBLEMS_IN_VIEW + 1 },
    ]);
  });
});
