import { HEADLINES, type Headline } from "./codes.js";
import { FrozenValues } from "./frozen-values.js";
import type {
  ClassifiedLease,
  EnvironmentSummary,
  Inventory,
  ProviderObservation,
  SandboxListing,
  SourceSnapshot,
} from "./inventory.js";
import { judgeRow, SharedVerdicts } from "./judge-row.js";
import type { Company, Environment, LeaseRow } from "./paperclip.js";
import { indexListings, observeProvider } from "./provider-state.js";
import { holdersFirst, NOT_SHARED, type SharedEvidence, sharedEvidenceIn } from "./sandbox-groups.js";
import { recordedSandboxId } from "./sandbox-id.js";
import { originHealth, splitByGaps, untrackedSandboxes } from "./untracked.js";

export { SHARED_WITH_LIMIT } from "./sandbox-groups.js";

export interface ReconcileInput {
  snapshots: readonly SourceSnapshot[];
  listings: readonly SandboxListing[];
  now: Date;
  /** CreateOS requests made to take the listings, reported as is. */
  requests: number;
}

/**
 * The inventory: every lease row of every source joined with its environment and with what CreateOS
 * lists, judged; plus per-environment counts, the listed sandboxes no row names, and the health of each
 * listing. Every index is built once, so the cost grows with rows plus listed sandboxes.
 *
 * This judges sources held whole in memory (the CLI's and the tests' scans, the demo's world). A host's
 * scan judges the same rows with the same rules as they stream into its store (`inventory/judge/`);
 * a test holds the two to the same inventory.
 */
export function reconcile({ snapshots, listings, now, requests }: ReconcileInput): Inventory {
  const listingIndex = indexListings(listings);
  const environments = indexEnvironments(snapshots);
  const sandboxGroups = groupRowsBySandbox(snapshots);
  // Rows judged alike share one verdict, and rows no listing shows one observation (decisions 219, 220).
  const verdicts = new SharedVerdicts();
  const unlisted = new FrozenValues<ProviderObservation>();

  const leases: ClassifiedLease[] = [];
  for (const { sourceId, leases: rows, installedPlugin } of snapshots) {
    const sourceEnvironments = environments.get(sourceId);
    for (const row of rows) {
      const environment =
        row.environmentId === null ? null : (sourceEnvironments?.get(row.environmentId) ?? null);
      const observed = observeProvider(row, environment, listingIndex);
      // Without a listed sandbox (or a job's mark) an observation says only where and why: shared.
      const provider =
        observed.sandbox === null && observed.actedOnBy == null ? unlisted.of(observed) : observed;
      const shared = sharedEvidence(row, sandboxGroups);
      leases.push(judgeRow({ sourceId, row, environment, provider, shared, installedPlugin, now }, verdicts));
    }
  }

  const environmentSummaries = summarizeEnvironments(snapshots, leases);
  const gaps = snapshots.flatMap((snapshot) => snapshot.gaps);
  const named = namedSandboxes(leases);
  const { untracked, uncertain } = splitByGaps(
    untrackedSandboxes(listings, (sandboxId) => named.has(sandboxId)),
    gaps,
  );
  return {
    generatedAt: now.toISOString(),
    requests,
    environments: environmentSummaries,
    leases,
    untracked,
    untrackedUncertain: uncertain,
    companies: mergeCompanies(snapshots),
    gaps,
    problems: snapshots.flatMap((snapshot) => snapshot.problems),
    origins: listings.map(originHealth),
    ...sourceNotesOf(snapshots),
  };
}

/** What each source said of how it read, where it said something. */
export function sourceNotesOf(
  snapshots: readonly Pick<SourceSnapshot, "sourceId" | "note">[],
): Pick<Inventory, "sourceNotes"> {
  const notes = snapshots.flatMap(({ sourceId, note }) =>
    note ? [{ source: sourceId, message: note }] : [],
  );
  return notes.length > 0 ? { sourceNotes: notes } : {};
}

/** How many rows carry each headline. */
export function summarizeCounts(
  leases: Iterable<Pick<ClassifiedLease, "verdict">>,
): Record<Headline, number> {
  const counts = emptyCounts();
  for (const { verdict } of leases) counts[verdict.headline] += 1;
  return counts;
}

export function emptyCounts(): Record<Headline, number> {
  return Object.fromEntries(HEADLINES.map((headline) => [headline, 0])) as Record<Headline, number>;
}

/** Environments by source, then id: the same environment id in two sources is two environments. */
export function indexEnvironments(
  snapshots: readonly Pick<SourceSnapshot, "sourceId" | "environments">[],
): Map<string, Map<string, Environment>> {
  const bySource = new Map<string, Map<string, Environment>>();
  for (const { sourceId, environments } of snapshots) {
    let byId = bySource.get(sourceId);
    if (byId === undefined) {
      byId = new Map();
      bySource.set(sourceId, byId);
    }
    for (const environment of environments) {
      if (!byId.has(environment.id)) byId.set(environment.id, environment);
    }
  }
  return bySource;
}

interface SandboxGroup {
  /** Every row naming the sandbox, the ones that hold it first. */
  rows: LeaseRow[];
  /**
   * How many distinct lease ids are among them (one lease read from two sources is one lease, not
   * two); counted on first use, and only for the few sandboxes that more than one row names.
   */
  leases: number | null;
}

/**
 * Rows by the sandbox id they name, across all sources: Paperclip's own sweep matches on the sandbox id
 * (`environment_leases_provider_lease_idx`), and CreateOS never reuses one.
 */
function groupRowsBySandbox(snapshots: readonly SourceSnapshot[]): Map<string, SandboxGroup> {
  const groups = new Map<string, SandboxGroup>();
  for (const { leases } of snapshots) {
    for (const row of leases) {
      const sandboxId = recordedSandboxId(row);
      if (sandboxId === null) continue;
      const group = groups.get(sandboxId);
      if (group === undefined) groups.set(sandboxId, { rows: [row], leases: null });
      else group.rows.push(row);
    }
  }
  for (const group of groups.values()) holdersFirst(group.rows);
  return groups;
}

function sharedEvidence(row: LeaseRow, groups: Map<string, SandboxGroup>): SharedEvidence {
  const sandboxId = recordedSandboxId(row);
  const group = sandboxId === null ? undefined : groups.get(sandboxId);
  if (group === undefined || group.rows.length === 1) return NOT_SHARED;
  group.leases ??= new Set(group.rows.map((other) => other.id)).size;
  return sharedEvidenceIn(row, group.rows, group.leases);
}

function summarizeEnvironments(
  snapshots: readonly SourceSnapshot[],
  leases: readonly ClassifiedLease[],
): EnvironmentSummary[] {
  const counts = new Map<string, Record<Headline, number>>();
  for (const { sourceId, environment, verdict } of leases) {
    if (environment === null) continue;
    const key = `${sourceId}\u0000${environment.id}`;
    let tally = counts.get(key);
    if (tally === undefined) {
      tally = emptyCounts();
      counts.set(key, tally);
    }
    tally[verdict.headline] += 1;
  }
  return environmentSummaries(
    snapshots,
    (sourceId, environmentId) => counts.get(`${sourceId}\u0000${environmentId}`) ?? emptyCounts(),
  );
}

/**
 * One summary per environment each source lists (the first of a repeated id), with its rows' counts by
 * headline (`countsOf`), ordered by company, name, source and id as the sidebar shows them.
 */
export function environmentSummaries(
  sources: readonly {
    sourceId: string;
    environments: readonly Pick<Environment, "id" | "companyId" | "name">[];
  }[],
  countsOf: (sourceId: string, environmentId: string) => Record<Headline, number>,
): EnvironmentSummary[] {
  const summaries = new Map<string, Map<string, EnvironmentSummary>>();
  for (const { sourceId, environments } of sources) {
    let byId = summaries.get(sourceId);
    if (byId === undefined) {
      byId = new Map();
      summaries.set(sourceId, byId);
    }
    for (const { id, companyId, name } of environments) {
      if (!byId.has(id))
        byId.set(id, { sourceId, environmentId: id, companyId, name, counts: countsOf(sourceId, id) });
    }
  }
  const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
  return [...summaries.values()]
    .flatMap((byId) => [...byId.values()])
    .sort(
      (a, b) =>
        collator.compare(a.companyId ?? "", b.companyId ?? "") ||
        collator.compare(a.name, b.name) ||
        collator.compare(a.sourceId, b.sourceId) ||
        collator.compare(a.environmentId, b.environmentId),
    );
}

function namedSandboxes(leases: readonly ClassifiedLease[]): Set<string> {
  const named = new Set<string>();
  for (const { lease } of leases) {
    const sandboxId = recordedSandboxId(lease);
    if (sandboxId !== null) named.add(sandboxId);
  }
  return named;
}

/** Companies by id across sources; the first name a source gives wins. */
export function mergeCompanies(sources: readonly { companies: readonly Company[] }[]): Company[] {
  const byId = new Map<string, Company>();
  for (const { companies } of sources) {
    for (const company of companies) {
      if (!byId.has(company.id)) byId.set(company.id, { id: company.id, name: company.name });
    }
  }
  return [...byId.values()];
}
