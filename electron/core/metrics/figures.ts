import { HEADLINES, type Headline, QUIET_HEADLINES } from "../../../shared/domain/codes.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import { summarizeCounts } from "../../../shared/domain/reconcile.js";
import { scanReport } from "../inventory/report.js";

/**
 * What the metrics say about one inventory: its scan-wide parts read from the same report `leasekeeper
 * scan --json` prints (`scanReport`), and its counts by headline from the same store columns that report's
 * counts are read from (both held equal to the whole inventory's by tests). Every label value is a
 * bare origin, a credential's name, a source's id, an environment's id and name, or a word of the
 * project's own vocabulary: never a key, a URL path or a query.
 */
export interface InventoryFigures {
  generatedAt: string;
  /** Leases per headline over the whole inventory (`counts` of the report). */
  headlines: Record<Headline, number>;
  /** Leases needing an operator (not closed, not ok): the report's `counts.attention`. */
  attention: number;
  /** Leases per headline in each environment whose leases were read (`environments[].counts` of the report). */
  environments: {
    sourceId: string;
    environmentId: string;
    name: string;
    counts: Record<Headline, number>;
  }[];
  /** Listed sandboxes no row names, per origin and credential (`untracked`). */
  untracked: PerListing[];
  /** Sandboxes no row names at an origin where a source was incomplete (`untrackedUncertain`). */
  untrackedUncertain: PerListing[];
  /**
   * Running sandboxes of the leases that need an operator (headline neither ok nor closed), each
   * sandbox once however many such leases name it, and the vCPU and memory CreateOS listed for them.
   */
  flaggedRunning: { sandboxes: number; vcpus: number; memoryGib: number };
  /**
   * How each credential's listing went in the scan behind the inventory, and the sandboxes it returned:
   * null when it failed, for nothing was read of that account.
   */
  listings: { origin: string; credential: string; ok: boolean; sandboxes: number | null }[];
  /** Whether each source was read completely (no gap) in the scan behind the inventory. */
  sources: { sourceId: string; complete: boolean }[];
  /** CreateOS requests the scan made. */
  requests: number;
}

export interface PerListing {
  origin: string;
  credential: string;
  count: number;
}

const RUNNING = "running";

/**
 * The figures of an inventory. Given `counts` (every row's headline counted, as the store keeps them),
 * `inventory.leases` need only hold the rows needing an operator: nothing else reads the other rows.
 */
export function inventoryFigures(
  inventory: Inventory,
  sourceIds: readonly string[] = [],
  counts: Record<Headline, number> = summarizeCounts(inventory.leases),
): InventoryFigures {
  // The report's scan-wide parts; its counts are taken over the rows given, so they are counted here.
  const report = scanReport({ ...inventory, leases: [] });
  const headlines = Object.fromEntries(HEADLINES.map((headline) => [headline, counts[headline]])) as Record<
    Headline,
    number
  >;
  const attention = HEADLINES.filter((headline) => !QUIET_HEADLINES.includes(headline)).reduce(
    (sum, headline) => sum + counts[headline],
    0,
  );
  const flagged = new Map<string, { vcpu: number; memMib: number }>();
  for (const { verdict, provider } of inventory.leases) {
    if (QUIET_HEADLINES.includes(verdict.headline)) continue;
    if (verdict.provider !== RUNNING || provider.sandbox === null) continue;
    const key = `${provider.origin ?? ""}\u0000${provider.sandbox.id}`;
    flagged.set(key, { vcpu: provider.sandbox.vcpu ?? 0, memMib: provider.sandbox.memMib ?? 0 });
  }
  let vcpus = 0;
  let memMib = 0;
  for (const size of flagged.values()) {
    vcpus += size.vcpu;
    memMib += size.memMib;
  }
  const gapSources = new Set(report.gaps.map((gap) => gap.source));
  const sources = [...new Set([...sourceIds, ...report.environments.map((env) => env.sourceId)])];
  return {
    generatedAt: report.generatedAt,
    headlines,
    attention,
    // An environment whose leases were not read has no series: a zero would say it holds none.
    environments: report.environments.flatMap(({ sourceId, environmentId, name, counts }) =>
      counts === null ? [] : [{ sourceId, environmentId, name, counts: { ...counts } }],
    ),
    untracked: perListing(report.untracked),
    untrackedUncertain: perListing(report.untrackedUncertain),
    flaggedRunning: { sandboxes: flagged.size, vcpus, memoryGib: memMib / 1024 },
    listings: report.origins.map((health) => ({
      origin: bareOrigin(health.origin),
      credential: health.credential,
      ok: health.ok,
      sandboxes: health.ok ? health.sandboxCount : null,
    })),
    sources: sources.map((sourceId) => ({ sourceId, complete: !gapSources.has(sourceId) })),
    requests: report.requests,
  };
}

function perListing(sandboxes: readonly { origin: string; credential: string }[]): PerListing[] {
  const counts = new Map<string, PerListing>();
  for (const { origin, credential } of sandboxes) {
    const bare = bareOrigin(origin);
    const key = `${bare}\u0000${credential}`;
    const entry = counts.get(key) ?? { origin: bare, credential, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  return [...counts.values()];
}

/** `scheme://host[:port]` alone: whatever path, query or credentials a value carried are dropped. */
export function bareOrigin(value: string | null): string {
  if (value === null) return "";
  try {
    const origin = new URL(value).origin;
    return origin === "null" ? "invalid" : origin;
  } catch {
    return "invalid";
  }
}
