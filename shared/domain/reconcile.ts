import { originOf } from "./api-url.js";
import { HEADLINES, type Headline, TERMINAL_PROVIDER_STATUSES } from "./codes.js";
import { holdsSandbox } from "./flags.js";
import { FrozenValues } from "./frozen-values.js";
import type {
  ClassifiedLease,
  EnvironmentSummary,
  Inventory,
  LeaseVerdict,
  OriginHealth,
  ProviderObservation,
  SandboxListing,
  SourceSnapshot,
  UncertainSandbox,
  UntrackedSandbox,
} from "./inventory.js";
import type { Company, Environment, LeaseRow, SourceGap } from "./paperclip.js";
import { indexListings, observeProvider } from "./provider-state.js";
import { recordedSandboxId } from "./sandbox-id.js";
import { classifyLease } from "./verdict.js";
import type { VerdictMemo } from "./verdict-memo.js";

export interface ReconcileInput {
  snapshots: readonly SourceSnapshot[];
  listings: readonly SandboxListing[];
  now: Date;
  /** CreateOS requests made to take the listings, reported as is. */
  requests: number;
  /**
   * What the previous scan judged each row from: a row whose inputs are unchanged keeps its verdict
   * instead of being judged again (the result is the same either way), and this scan's judgements are
   * kept in it for the next.
   */
  memo?: VerdictMemo;
}

/**
 * How many other rows one row carries as evidence of sharing. A reusable sandbox resumed by run after run
 * gathers a row per run, and listing every other row on every row would grow with the square of
 * that. Rows that hold the sandbox (`active`, `retained`) come first, so the bound never hides one from
 * the leak rule or the destroy guard unless more than this many hold it at once.
 */
export const SHARED_WITH_LIMIT = 20;

/**
 * The inventory: every lease row of every source joined with its environment and with what CreateOS
 * lists, judged; plus per-environment counts, the listed sandboxes no row names, and the health of each
 * listing. Every index is built once, so the cost grows with rows plus listed sandboxes.
 */
export function reconcile({ snapshots, listings, now, requests, memo }: ReconcileInput): Inventory {
  memo?.begin();
  const nowMs = now.getTime();
  const listingIndex = indexListings(listings);
  const environments = indexEnvironments(snapshots);
  const sandboxGroups = groupRowsBySandbox(snapshots);
  // Rows judged alike share one verdict, and rows no listing shows one observation (decisions 219, 220).
  const verdicts = new FrozenValues<LeaseVerdict>(freezeVerdict);
  const unlisted = new FrozenValues<ProviderObservation>();

  const leases: ClassifiedLease[] = [];
  for (const { sourceId, leases: rows, installedPlugin } of snapshots) {
    const sourceEnvironments = environments.get(sourceId);
    // One copy of the memo keys' prefix for the whole source (a template per row made one per row).
    const memoKeyPrefix = `${sourceId}\u0000`;
    for (const row of rows) {
      const environment =
        row.environmentId === null ? null : (sourceEnvironments?.get(row.environmentId) ?? null);
      const observed = observeProvider(row, environment, listingIndex);
      // Without a listed sandbox (or a job's mark) an observation says only where and why: shared.
      const provider =
        observed.sandbox === null && observed.actedOnBy == null ? unlisted.of(observed) : observed;
      const shared = sharedEvidence(row, sandboxGroups);
      const judge = () =>
        verdicts.of(
          classifyLease(row, environment, provider, {
            now,
            otherRowsOnSandbox: shared.others,
            ...(installedPlugin === undefined ? {} : { installedPlugin }),
          }),
        );
      const verdict =
        memo === undefined
          ? judge()
          : memo.verdict(
              memoKeyPrefix + row.id,
              { row, environment, provider: provider.code, otherRows: shared.others, installedPlugin },
              nowMs,
              judge,
            );
      const classified: ClassifiedLease = {
        sourceId,
        lease: row,
        environment,
        verdict,
        provider,
        sharedWith: shared === NOT_SHARED ? NO_OTHER_LEASES : shared.others.map((other) => other.id),
      };
      if (shared.count > shared.others.length) classified.sharedWithCount = shared.count;
      if (installedPlugin !== undefined) classified.installedPlugin = installedPlugin;
      leases.push(classified);
    }
  }

  memo?.commit();
  const environmentSummaries = summarizeEnvironments(snapshots, leases);
  const gaps = snapshots.flatMap((snapshot) => snapshot.gaps);
  const { untracked, uncertain } = splitByGaps(untrackedSandboxes(listings, leases), gaps);
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

function sourceNotesOf(snapshots: readonly SourceSnapshot[]): Pick<Inventory, "sourceNotes"> {
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

function emptyCounts(): Record<Headline, number> {
  return Object.fromEntries(HEADLINES.map((headline) => [headline, 0])) as Record<Headline, number>;
}

/** Environments by source, then id: the same environment id in two sources is two environments. */
function indexEnvironments(snapshots: readonly SourceSnapshot[]): Map<string, Map<string, Environment>> {
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
   * The distinct lease ids among them (one lease read from two sources is one lease, not two); gathered
   * on first use, and only for the few sandboxes that more than one row names.
   */
  leaseIds: Set<string> | null;
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
      if (group === undefined) groups.set(sandboxId, { rows: [row], leaseIds: null });
      else group.rows.push(row);
    }
  }
  for (const group of groups.values()) {
    if (group.rows.length > 1) {
      group.rows.sort((a, b) => Number(holdsSandbox(b)) - Number(holdsSandbox(a)));
    }
  }
  return groups;
}

/** Frozen with its arrays, so a change meant for one row's verdict cannot reach every row sharing it. */
function freezeVerdict(verdict: LeaseVerdict): LeaseVerdict {
  Object.freeze(verdict.ownership);
  Object.freeze(verdict.flags);
  Object.freeze(verdict.allowedActions);
  Object.freeze(verdict.overridableActions);
  Object.freeze(verdict.refusals);
  return Object.freeze(verdict);
}

const NOT_SHARED = { others: [] as LeaseRow[], count: 0 };
/** The `sharedWith` of every row alone on its sandbox: one frozen empty list, not one per row. */
const NO_OTHER_LEASES = Object.freeze([]) as unknown as string[];

/**
 * The other leases on this row's sandbox (at most SHARED_WITH_LIMIT of them, each lease once however
 * many sources carry it, the first copy in holding-first order standing for it) and how many there are.
 */
function sharedEvidence(
  row: LeaseRow,
  groups: Map<string, SandboxGroup>,
): { others: LeaseRow[]; count: number } {
  const sandboxId = recordedSandboxId(row);
  const group = sandboxId === null ? undefined : groups.get(sandboxId);
  if (group === undefined || group.rows.length === 1) return NOT_SHARED;
  group.leaseIds ??= new Set(group.rows.map((other) => other.id));
  const count = group.leaseIds.size - 1;
  if (count === 0) return NOT_SHARED;
  const others: LeaseRow[] = [];
  const named = new Set([row.id]);
  for (const other of group.rows) {
    if (named.has(other.id)) continue;
    named.add(other.id);
    others.push(other);
    if (others.length === SHARED_WITH_LIMIT) break;
  }
  return { others, count };
}

function summarizeEnvironments(
  snapshots: readonly SourceSnapshot[],
  leases: readonly ClassifiedLease[],
): EnvironmentSummary[] {
  const summaries = new Map<string, Map<string, EnvironmentSummary>>();
  for (const { sourceId, environments } of snapshots) {
    let byId = summaries.get(sourceId);
    if (byId === undefined) {
      byId = new Map();
      summaries.set(sourceId, byId);
    }
    for (const { id, companyId, name } of environments) {
      if (!byId.has(id))
        byId.set(id, { sourceId, environmentId: id, companyId, name, counts: emptyCounts() });
    }
  }
  for (const { sourceId, environment, verdict } of leases) {
    if (environment === null) continue;
    const summary = summaries.get(sourceId)?.get(environment.id);
    if (summary !== undefined) summary.counts[verdict.headline] += 1;
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

/**
 * Sandboxes that an OK listing shows alive and that no row names: orphans, such as the one a lost
 * create response leaves behind. A row naming the id at any origin counts: CreateOS never reuses
 * an id, and one control plane can answer at two API URLs (a renamed domain), listing the same sandboxes
 * at both — calling those untracked would invite a forced destroy of a sandbox a lease still names.
 * Listed at several origins, an orphan is reported once, at the first that listed it.
 */
function untrackedSandboxes(
  listings: readonly SandboxListing[],
  leases: readonly ClassifiedLease[],
): UntrackedSandbox[] {
  const named = new Set<string>();
  for (const { lease } of leases) {
    const sandboxId = recordedSandboxId(lease);
    if (sandboxId !== null) named.add(sandboxId);
  }

  const untracked: UntrackedSandbox[] = [];
  const reported = new Set<string>();
  for (const listing of listings) {
    if (!listing.outcome.ok) continue;
    const origin = originOf(listing.origin) ?? listing.origin;
    for (const sandbox of listing.outcome.sandboxes) {
      if ((TERMINAL_PROVIDER_STATUSES as readonly string[]).includes(sandbox.status)) continue;
      if (named.has(sandbox.id) || reported.has(sandbox.id)) continue;
      reported.add(sandbox.id);
      untracked.push({
        sandboxId: sandbox.id,
        origin,
        credential: listing.credential,
        status: sandbox.status,
        sandbox,
      });
    }
  }
  return untracked;
}

/**
 * A listed sandbox no row names is an orphan only if every source that could name it was read
 * completely: a gap at its origin (or a gap that could be at any origin) may hide the row that names it,
 * so such a sandbox is reported as uncertain, with the gaps as the reason, and never offered for destroy.
 */
function splitByGaps(
  candidates: UntrackedSandbox[],
  gaps: readonly SourceGap[],
): { untracked: UntrackedSandbox[]; uncertain: UncertainSandbox[] } {
  if (gaps.length === 0) return { untracked: candidates, uncertain: [] };
  const anywhere = gaps.filter((gap) => gap.origin === null);
  const byOrigin = new Map<string, SourceGap[]>();
  for (const gap of gaps) {
    if (gap.origin === null) continue;
    const origin = originOf(gap.origin) ?? gap.origin;
    byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), gap]);
  }
  const untracked: UntrackedSandbox[] = [];
  const uncertain: UncertainSandbox[] = [];
  const reasons = new Map<string, string>();
  for (const candidate of candidates) {
    const hiding = [...(byOrigin.get(candidate.origin) ?? []), ...anywhere];
    if (hiding.length === 0) {
      untracked.push(candidate);
      continue;
    }
    let reason = reasons.get(candidate.origin);
    if (reason === undefined) {
      reason = uncertainReason(hiding);
      reasons.set(candidate.origin, reason);
    }
    uncertain.push({ ...candidate, reason });
  }
  return { untracked, uncertain };
}

const REASON_GAPS = 3;

function uncertainReason(gaps: readonly SourceGap[]): string {
  const named = gaps.slice(0, REASON_GAPS).map((gap) => `${gap.source}: ${gap.message}`);
  const more = gaps.length > REASON_GAPS ? `; and ${gaps.length - REASON_GAPS} more` : "";
  return `cannot tell: sources incomplete — ${named.join("; ")}${more}`;
}

/** Companies by id across sources; the first name a source gives wins. */
function mergeCompanies(snapshots: readonly SourceSnapshot[]): Company[] {
  const byId = new Map<string, Company>();
  for (const { companies } of snapshots) {
    for (const company of companies) {
      if (!byId.has(company.id)) byId.set(company.id, { id: company.id, name: company.name });
    }
  }
  return [...byId.values()];
}

function originHealth(listing: SandboxListing): OriginHealth {
  const origin = originOf(listing.origin) ?? listing.origin;
  const { outcome } = listing;
  return outcome.ok
    ? {
        origin,
        credential: listing.credential,
        ok: true,
        reason: null,
        httpStatus: null,
        sandboxCount: outcome.sandboxes.length,
      }
    : {
        origin,
        credential: listing.credential,
        ok: false,
        reason: outcome.reason,
        httpStatus: outcome.httpStatus ?? null,
        sandboxCount: 0,
      };
}
