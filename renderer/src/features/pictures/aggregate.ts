import type { InventoryView, LeaseRowView, UntrackedSandboxView } from "../../../../shared/contract";
import { BILLING_PROVIDER_STATES, HEADLINES, type Headline } from "../../../../shared/domain/codes";
import { environmentKey, type UnreadEnvironment, unreadEnvironments } from "../../state/environment-key";

/** Data for the pictures, from the same inventory the table shows. Pure, so each is tested by table. */

export interface EnvironmentBar {
  key: string;
  name: string;
  environmentId: string | null;
  /** Why its count is not known, and what of it is not; null when read. Unread, its counts are 0. */
  unread: UnreadEnvironment | null;
  counts: Record<Headline, number>;
  total: number;
  flagged: number;
}

/** The headlines that need someone: neither ok nor closed (history). */
export const FLAGGED: readonly Headline[] = ["foreign", "stale", "leaking", "unknown"];

/**
 * One bar per environment, the most flagged first, at most `limit` (the rest summed into "others"). An
 * environment whose leases a source could not read (a gap names it, as in the sidebar) is drawn after
 * them as not read: its counts are no count of its leases, so they are neither drawn nor summed.
 */
export function environmentBars(view: InventoryView, limit = 20): EnvironmentBar[] {
  const unreadBecause = unreadEnvironments(view);
  const bars = view.environments.map((environment, at) => {
    const unread = unreadBecause.get(environmentKey(environment.sourceId, environment.environmentId)) ?? null;
    const counts = Object.fromEntries(
      HEADLINES.map((h) => [h, unread === null ? (environment.counts[h] ?? 0) : 0]),
    ) as Record<Headline, number>;
    return {
      key: `${at}`,
      name: environment.name || (environment.known ? "(unnamed)" : "(environment not listed)"),
      environmentId: environment.environmentId,
      unread,
      counts,
      total: HEADLINES.reduce((sum, h) => sum + counts[h], 0),
      flagged: FLAGGED.reduce((sum, h) => sum + counts[h], 0),
    };
  });
  const unread = bars.filter((bar) => bar.unread !== null).sort((a, b) => a.name.localeCompare(b.name));
  const read = bars.filter((bar) => bar.unread === null);
  read.sort((a, b) => b.flagged - a.flagged || b.total - a.total || a.name.localeCompare(b.name));
  const room = Math.max(limit - unread.length, 2);
  if (read.length <= room) return [...read, ...unread];
  const kept = read.slice(0, room - 1);
  const others = read.slice(room - 1);
  const counts = Object.fromEntries(
    HEADLINES.map((h) => [h, others.reduce((sum, bar) => sum + bar.counts[h], 0)]),
  ) as Record<Headline, number>;
  kept.push({
    key: "others",
    name: `${others.length} other environments`,
    environmentId: null,
    unread: null,
    counts,
    total: others.reduce((sum, bar) => sum + bar.total, 0),
    flagged: others.reduce((sum, bar) => sum + bar.flagged, 0),
  });
  return [...kept, ...unread];
}

/** vCPU and memory of a CreateOS shape id such as "s-2vcpu-4gb" or "s-0.25vcpu-512mb". */
export function shapeResources(shape: string | null | undefined): { vcpu: number; memMib: number } | null {
  if (!shape) return null;
  const match = /^s-([\d.]+)vcpu-(\d+)(mb|gb)$/.exec(shape);
  if (!match) return null;
  return { vcpu: Number(match[1]), memMib: Number(match[2]) * (match[3] === "gb" ? 1024 : 1) };
}

export interface Holding {
  label: string;
  tone: Headline | "neutral";
  /** Distinct sandboxes that CreateOS still lists alive (not gone, and seen); null while not read. */
  sandboxes: number | null;
  /** Distinct sandboxes whose state CreateOS could not tell (`unknown`, `not-visible`): neither held nor not. */
  unchecked: number;
  /** Unnamed sandboxes alive at an origin a source was incomplete at: neither untracked nor leased. */
  uncertain: number;
  /** Of those, how many have a known size; vCPU and memory sum only these. */
  sized: number;
  vcpu: number;
  memMib: number;
}

/** What CreateOS could not tell of a leased sandbox: the listing failed, or no account lists it. */
const UNCHECKED = new Set<string>(["not-visible", "unknown"]);

/**
 * What the flagged sandboxes hold: per headline, the distinct live sandboxes and the vCPU and memory of
 * those whose shape is known — the cost of leaving them. A leased sandbox is sized from its shape name
 * (CreateOS's listing, else the lease's record: s-2vcpu-4gb is 2 vCPU and 4 GiB). A sandbox whose state
 * could not be read is counted apart, as unchecked. Untracked sandboxes count as their own line; while
 * their list is not read (`null`), that line's count is null, not 0. The unnamed sandboxes that list
 * holds as uncertain (a source was incomplete at their origin) are counted apart, never as untracked.
 */
export function holdings(
  rows: readonly LeaseRowView[],
  untracked: readonly UntrackedSandboxView[] | null,
  uncertain: readonly UntrackedSandboxView[] = [],
): Holding[] {
  const result: Holding[] = [];
  for (const headline of ["foreign", "stale", "leaking"] as const) {
    const seen = new Set<string>();
    const holding = {
      label: headline,
      tone: headline,
      sandboxes: 0,
      unchecked: 0,
      uncertain: 0,
      sized: 0,
      vcpu: 0,
      memMib: 0,
    };
    for (const row of rows) {
      if (row.headline !== headline || !row.sandboxId || row.provider === "gone") continue;
      const key = `${row.origin ?? ""} ${row.sandboxId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (UNCHECKED.has(row.provider)) {
        holding.unchecked += 1;
        continue;
      }
      holding.sandboxes += 1;
      const size = shapeResources(row.shape);
      if (size) {
        holding.sized += 1;
        holding.vcpu += size.vcpu;
        holding.memMib += size.memMib;
      }
    }
    result.push(holding);
  }
  if (untracked === null) {
    result.push({
      label: "untracked",
      tone: "neutral",
      sandboxes: null,
      unchecked: 0,
      uncertain: 0,
      sized: 0,
      vcpu: 0,
      memMib: 0,
    });
    return result;
  }
  // One account can be listed through several credentials (an API URL and its old alias): count it once.
  const distinct = new Map(untracked.map((sandbox) => [sandbox.sandboxId, sandbox]));
  const live = [...distinct.values()].filter(
    (sandbox) => sandbox.status !== "destroyed" && sandbox.status !== "failed",
  );
  const holding: Holding = {
    label: "untracked",
    tone: "neutral",
    sandboxes: live.length,
    unchecked: 0,
    uncertain: liveUntracked(uncertain),
    sized: 0,
    vcpu: 0,
    memMib: 0,
  };
  for (const sandbox of live) {
    const size =
      sandbox.vcpu !== null && sandbox.memMib !== null
        ? { vcpu: sandbox.vcpu, memMib: sandbox.memMib }
        : shapeResources(sandbox.shape);
    if (size) {
      holding.sized += 1;
      holding.vcpu += size.vcpu;
      holding.memMib += size.memMib;
    }
  }
  result.push(holding);
  return result;
}

export interface AgeBucket {
  label: string;
  /** Upper bound of the bucket's age, in hours (Infinity for the last). */
  maxHours: number;
  stale: number;
  leaking: number;
}

const BUCKETS: Array<[string, number]> = [
  ["< 1h", 1],
  ["1–6h", 6],
  ["6–24h", 24],
  ["1–3d", 72],
  ["3–7d", 168],
  ["7–30d", 720],
  ["30–90d", 2160],
  ["> 90d", Number.POSITIVE_INFINITY],
];

/** How long the leaking and stale leases have been held (since acquisition), in age buckets. */
export function ageHistogram(rows: readonly LeaseRowView[], nowMs: number): AgeBucket[] {
  const buckets = BUCKETS.map(([label, maxHours]) => ({ label, maxHours, stale: 0, leaking: 0 }));
  for (const row of rows) {
    if (row.headline !== "stale" && row.headline !== "leaking") continue;
    if (!row.acquiredAtMs) continue;
    const hours = Math.max(0, (nowMs - row.acquiredAtMs) / 3_600_000);
    const bucket = buckets.find((candidate) => hours < candidate.maxHours) ?? buckets[buckets.length - 1]!;
    bucket[row.headline] += 1;
  }
  return buckets;
}

/** What CreateOS charges, as set in Settings; null where it is not set. */
export interface Prices {
  vcpuHour: number | null;
  gibHour: number | null;
}

/** What the flagged sandboxes that run now have cost since they started, in resources and, with prices, money. */
export interface RunningCost {
  /**
   * Distinct sandboxes CreateOS bills as running (running, creating, resuming) behind flagged rows, and
   * untracked ones when their list was read (`untrackedRead`).
   */
  sandboxes: number;
  /** Distinct sandboxes behind flagged rows whose state CreateOS could not tell: they may run, or not. */
  unchecked: number;
  /** Whether the untracked sandboxes were read; if not, `sandboxes` says nothing of them. */
  untrackedRead: boolean;
  /** Of those, how many have a known size and a start time; the hours sum only these. */
  sized: number;
  vcpuHours: number;
  gibHours: number;
  /** vCPU·hours × the vCPU-hour price + GiB·hours × the GiB-hour price; null unless both prices are set. */
  money: number | null;
}

const BILLED = new Set<string>(BILLING_PROVIDER_STATES);

/**
 * What the flagged sandboxes cost while running: each running sandbox behind a flagged row (or untracked)
 * counts once, its vCPU and GiB from its shape (s-2vcpu-4gb is 2 vCPU and 4 GiB) times the hours since
 * its lease was acquired (an untracked one: since CreateOS created it). A sandbox of unknown shape or
 * start is counted but not summed. A flagged row whose sandbox's state could not be read is counted as
 * unchecked, never as not running; untracked sandboxes not read yet (`null`) are left out and said so.
 */
export function runningCost(
  rows: Iterable<LeaseRowView>,
  untracked: readonly UntrackedSandboxView[] | null,
  nowMs: number,
  prices: Prices,
): RunningCost {
  const cost: RunningCost = {
    sandboxes: 0,
    unchecked: 0,
    untrackedRead: untracked !== null,
    sized: 0,
    vcpuHours: 0,
    gibHours: 0,
    money: null,
  };
  const unchecked = new Set<string>();
  const seen = new Set<string>();
  const add = (size: { vcpu: number; memMib: number } | null, startMs: number) => {
    cost.sandboxes += 1;
    if (!size || !Number.isFinite(startMs) || startMs <= 0) return;
    const hours = Math.max(0, (nowMs - startMs) / 3_600_000);
    cost.sized += 1;
    cost.vcpuHours += size.vcpu * hours;
    cost.gibHours += (size.memMib / 1024) * hours;
  };
  for (const row of rows) {
    if (!FLAGGED.includes(row.headline) || !row.sandboxId) continue;
    const key = `${row.origin ?? ""} ${row.sandboxId}`;
    if (UNCHECKED.has(row.provider)) unchecked.add(key);
    if (!BILLED.has(row.provider)) continue;
    if (seen.has(key)) continue;
    seen.add(key);
    add(shapeResources(row.shape), row.acquiredAtMs);
  }
  cost.unchecked = unchecked.size;
  const distinct = new Map((untracked ?? []).map((sandbox) => [sandbox.sandboxId, sandbox]));
  for (const sandbox of distinct.values()) {
    if (!BILLED.has(sandbox.status)) continue;
    const size =
      sandbox.vcpu !== null && sandbox.memMib !== null
        ? { vcpu: sandbox.vcpu, memMib: sandbox.memMib }
        : shapeResources(sandbox.shape);
    add(size, sandbox.createdAt ? Date.parse(sandbox.createdAt) : Number.NaN);
  }
  if (prices.vcpuHour !== null && prices.gibHour !== null)
    cost.money = cost.vcpuHours * prices.vcpuHour + cost.gibHours * prices.gibHour;
  return cost;
}

/** Untracked sandboxes that still exist, each once (an account can be listed through two credentials). */
export function liveUntracked(untracked: readonly UntrackedSandboxView[]): number {
  const live = new Set<string>();
  for (const sandbox of untracked)
    if (sandbox.status !== "destroyed" && sandbox.status !== "failed") live.add(sandbox.sandboxId);
  return live.size;
}
