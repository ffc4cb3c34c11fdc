import { describe, expect, it } from "vitest";
import {
  emptyLeaseColumns,
  encodeInventory,
  type InventoryView,
  MAX_PROBLEMS_IN_VIEW,
  type UntrackedSandboxView,
  unreadOfGaps,
} from "../../../../shared/contract";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture";
import { row } from "../../test/rows";
import type { LeaseRowView } from "../leases/row-model";
import { ageHistogram, environmentBars, holdings, runningCost, shapeResources } from "./aggregate";

const now = Date.parse("2025-06-10T00:00:00Z");
const hoursAgo = (hours: number) => now - hours * 3_600_000;

describe("shapeResources", () => {
  it.each([
    ["s-2vcpu-4gb", { vcpu: 2, memMib: 4096 }],
    ["s-0.25vcpu-512mb", { vcpu: 0.25, memMib: 512 }],
    ["custom", null],
    [null, null],
  ])("%s", (shape, expected) => {
    expect(shapeResources(shape)).toEqual(expected);
  });
});

describe("holdings", () => {
  const untracked: UntrackedSandboxView[] = [
    {
      sandboxId: "sb-u",
      origin: "o",
      credential: "c",
      status: "running",
      shape: "s-1vcpu-1gb",
      rootfs: null,
      region: null,
      vcpu: 1,
      memMib: 1024,
      createdAt: null,
      name: null,
      createdBy: null,
    },
    {
      sandboxId: "sb-dead",
      origin: "o",
      credential: "c",
      status: "destroyed",
      shape: null,
      rootfs: null,
      region: null,
      vcpu: null,
      memMib: null,
      createdAt: null,
      name: null,
      createdBy: null,
    },
  ];

  it("counts distinct live sandboxes per flagged headline, and sizes those with a shape", () => {
    const rows = [
      row({ leaseId: "1", headline: "foreign", sandboxId: "sb-a", shape: "s-2vcpu-4gb" }),
      row({ leaseId: "2", headline: "foreign", sandboxId: "sb-a", shape: "s-2vcpu-4gb" }),
      row({ leaseId: "3", headline: "foreign", sandboxId: "sb-b" }),
      row({ leaseId: "7", headline: "leaking", sandboxId: "sb-d", shape: "s-0.5vcpu-512mb" }),
      row({ leaseId: "8", headline: "leaking", sandboxId: "sb-e", shape: "a-shape-of-another-kind" }),
      row({ leaseId: "4", headline: "stale", sandboxId: "sb-c", provider: "gone" }),
      row({ leaseId: "5", headline: "leaking", sandboxId: null }),
      row({ leaseId: "6", headline: "ok", sandboxId: "sb-ok" }),
    ];
    const result = holdings(rows, [...untracked, { ...untracked[0]!, credential: "alias" }]);
    expect(result).toEqual([
      {
        label: "foreign",
        tone: "foreign",
        sandboxes: 2,
        unchecked: 0,
        uncertain: 0,
        sized: 1,
        vcpu: 2,
        memMib: 4096,
      },
      {
        label: "stale",
        tone: "stale",
        sandboxes: 0,
        unchecked: 0,
        uncertain: 0,
        sized: 0,
        vcpu: 0,
        memMib: 0,
      },
      {
        label: "leaking",
        tone: "leaking",
        sandboxes: 2,
        unchecked: 0,
        uncertain: 0,
        sized: 1,
        vcpu: 0.5,
        memMib: 512,
      },
      {
        label: "untracked",
        tone: "neutral",
        sandboxes: 1,
        unchecked: 0,
        uncertain: 0,
        sized: 1,
        vcpu: 1,
        memMib: 1024,
      },
    ]);
  });

  it("counts a sandbox whose state could not be read as unchecked, and an unread untracked list as unknown", () => {
    const rows = [
      row({ leaseId: "1", headline: "stale", sandboxId: "sb-a", provider: "unknown" }),
      row({ leaseId: "2", headline: "stale", sandboxId: "sb-b", provider: "not-visible" }),
      row({ leaseId: "3", headline: "stale", sandboxId: "sb-c", provider: "running", shape: "s-1vcpu-1gb" }),
    ];
    const result = holdings(rows, null);
    expect(result.find((holding) => holding.label === "stale")).toMatchObject({ sandboxes: 1, unchecked: 2 });
    expect(result.find((holding) => holding.label === "untracked")?.sandboxes).toBeNull();
  });

  it("counts the uncertain sandboxes apart from the untracked ones, each live one once", () => {
    const uncertain = [untracked[0]!, { ...untracked[0]!, credential: "alias" }, untracked[1]!];
    const result = holdings([], [], uncertain);
    expect(result.find((holding) => holding.label === "untracked")).toMatchObject({
      sandboxes: 0,
      uncertain: 1,
    });
  });
});

describe("ageHistogram", () => {
  it("buckets leaking and stale leases by age since acquisition, and ignores the rest", () => {
    const rows = [
      row({ headline: "stale", acquiredAtMs: hoursAgo(0.5) }),
      row({ headline: "leaking", acquiredAtMs: hoursAgo(30) }),
      row({ headline: "leaking", acquiredAtMs: hoursAgo(50) }),
      row({ headline: "stale", acquiredAtMs: hoursAgo(24 * 100) }),
      row({ headline: "foreign", acquiredAtMs: hoursAgo(2) }),
      row({ headline: "stale", acquiredAtMs: 0 }),
    ];
    const buckets = ageHistogram(rows, now);
    const byLabel = Object.fromEntries(buckets.map((b) => [b.label, [b.stale, b.leaking]]));
    expect(byLabel).toEqual({
      "< 1h": [1, 0],
      "1–6h": [0, 0],
      "6–24h": [0, 0],
      "1–3d": [0, 2],
      "3–7d": [0, 0],
      "7–30d": [0, 0],
      "30–90d": [0, 0],
      "> 90d": [1, 0],
    });
  });
});

describe("what the flagged sandboxes cost while running", () => {
  const hour = 3_600_000;
  const now = Date.parse("2026-03-01T12:00:00Z");
  const lease = (overrides: Partial<LeaseRowView>) =>
    ({
      leaseId: "L",
      headline: "stale",
      provider: "running",
      sandboxId: "sb-1",
      origin: "https://api.example",
      shape: "s-2vcpu-4gb",
      acquiredAtMs: now - 10 * hour,
      ...overrides,
    }) as LeaseRowView;
  const untrackedSandbox = (overrides: Partial<UntrackedSandboxView>) =>
    ({
      sandboxId: "sb-u",
      origin: "https://api.example",
      credential: "a",
      status: "running",
      shape: null,
      rootfs: null,
      region: null,
      vcpu: 1,
      memMib: 2048,
      createdAt: new Date(now - 4 * hour).toISOString(),
      name: null,
      createdBy: null,
      ...overrides,
    }) as UntrackedSandboxView;

  it("sums vCPU and GiB hours of running flagged sandboxes from their shapes and ages, each once", () => {
    const cost = runningCost(
      [
        lease({}),
        lease({ leaseId: "L2" }), // the same sandbox again
        lease({ leaseId: "L3", sandboxId: "sb-2", headline: "ok" }),
        lease({ leaseId: "L4", sandboxId: "sb-3", provider: "paused" }),
        lease({ leaseId: "L5", sandboxId: "sb-4", shape: null }),
      ],
      [untrackedSandbox({}), untrackedSandbox({ sandboxId: "sb-v", status: "paused" })],
      now,
      { vcpuHour: null, gibHour: 0.01 },
    );
    expect(cost).toMatchObject({ sandboxes: 3, sized: 2, money: null });
    expect(cost.vcpuHours).toBeCloseTo(2 * 10 + 1 * 4);
    expect(cost.gibHours).toBeCloseTo(4 * 10 + 2 * 4);
  });

  it("counts flagged sandboxes whose state could not be read as unchecked, not as not running", () => {
    const cost = runningCost(
      [
        lease({ provider: "unknown" }),
        lease({ leaseId: "L2", provider: "unknown" }), // the same sandbox again
        lease({ leaseId: "L3", sandboxId: "sb-2", provider: "not-visible" }),
        lease({ leaseId: "L4", sandboxId: "sb-3", provider: "unknown", headline: "ok" }),
      ],
      [],
      now,
      { vcpuHour: null, gibHour: null },
    );
    expect(cost).toMatchObject({ sandboxes: 0, unchecked: 2, untrackedRead: true });
  });

  it("says the untracked sandboxes were not read while their list is unread", () => {
    const cost = runningCost([lease({})], null, now, { vcpuHour: null, gibHour: null });
    expect(cost).toMatchObject({ sandboxes: 1, untrackedRead: false });
  });

  it("estimates money only when both prices are set", () => {
    const cost = runningCost([lease({})], [], now, { vcpuHour: 0.04, gibHour: 0.005 });
    expect(cost.money).toBeCloseTo(20 * 0.04 + 40 * 0.005);
  });
});

describe("environmentBars", () => {
  const counts = (foreign: number, ok: number) => ({
    closed: 0,
    foreign,
    stale: 0,
    leaking: 0,
    unknown: 0,
    ok,
  });
  const environment = (environmentId: string, foreign: number) => ({
    sourceId: "s",
    environmentId,
    company: -1,
    name: environmentId,
    known: true,
    counts: counts(foreign, 1),
  });
  const view = (gaps: InventoryView["gaps"], environments = ["a", "b", "c", "d"]) => {
    const entries = environments.map((id, at) => environment(id, at));
    return {
      version: 3,
      generatedAt: "2025-06-01T00:00:00Z",
      requests: 0,
      environmentId: null,
      companies: [],
      companyNames: [],
      origins: [],
      statuses: [],
      policies: [],
      shapes: [],
      actedOn: [],
      leases: emptyLeaseColumns(),
      history: { count: 0, byEnvironment: environments.map(() => 0) },
      environments: entries,
      untracked: [],
      untrackedUncertain: [],
      gaps,
      gapCount: gaps.length,
      unread: unreadOfGaps(gaps, entries),
      originHealth: [],
      problems: [],
      problemCount: 0,
    } satisfies InventoryView;
  };

  it("draws an environment whose leases were not read as not read, outside the totals and the others", () => {
    const gap = { source: "s", origin: null, message: "its leases could not be read", environmentId: "d" };
    const bars = environmentBars(view([gap]), 3);
    expect(bars.map((bar) => bar.name)).toEqual(["c", "2 other environments", "d"]);
    expect(bars[2]).toMatchObject({
      unread: { because: "its leases could not be read", scope: "environment" },
      total: 0,
      flagged: 0,
    });
    expect(bars[1]).toMatchObject({ total: 3, flagged: 1 });
  });

  it("draws every environment as read when the one gap may hide only environments not listed", () => {
    const gap = {
      source: "s",
      origin: null,
      message: "a company could not be listed",
      unlistedOnly: true as const,
    };
    expect(environmentBars(view([gap])).every((bar) => bar.unread === null)).toBe(true);
  });

  it("draws every environment of the source as not read when a gap naming none may hide a lease of any", () => {
    const gap = { source: "s", origin: null, message: "leases[4] could not be read" };
    const bars = environmentBars(view([gap]));
    expect(bars.map((bar) => [bar.name, bar.total])).toEqual(["a", "b", "c", "d"].map((name) => [name, 0]));
    expect(bars.every((bar) => bar.unread?.because.startsWith("leases[4] could not be read;"))).toBe(true);
    expect(bars.every((bar) => bar.unread?.scope === "any-environment")).toBe(true);
  });
});

describe("environmentBars past the gaps the view lists", () => {
  it("draws an environment only a gap after the first MAX_PROBLEMS_IN_VIEW names as not read", () => {
    // Twelve rows: only the first environment is listed under a second source too (the fixture's thirteenth).
    const inventory = makeInventoryFixture({ rows: 12, environments: 4, seed: 5 });
    const [first, second] = inventory.environments;
    const gap = (at: number, environmentId: string) => ({
      source: first!.sourceId,
      origin: null,
      message: `leases[${at}] could not be read`,
      environmentId,
    });
    inventory.gaps = [
      ...Array.from({ length: MAX_PROBLEMS_IN_VIEW }, (_, at) => gap(at, first!.environmentId!)),
      gap(MAX_PROBLEMS_IN_VIEW, second!.environmentId!),
    ];
    const bars = environmentBars(encodeInventory(inventory, { leaveOutHistory: true }));
    const bar = bars.find((candidate) => candidate.environmentId === second!.environmentId)!;
    expect(bar.unread).not.toBeNull();
    expect(bar).toMatchObject({ total: 0, flagged: 0 });
    expect(bars.filter((candidate) => candidate.unread !== null)).toHaveLength(2);
  });
});
