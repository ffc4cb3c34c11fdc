import {
  ACTION_KINDS,
  DESTROY_CONFIRMATIONS,
  HEADLINES,
  type Headline,
  OWNERSHIP_CODES,
  PROVIDER_CODES,
  ROW_FLAGS,
} from "../../domain/codes.js";
import { type ClassifiedLease, type Inventory, UNKNOWN_REASONS } from "../../domain/inventory.js";
import { metadataObject, recorded } from "../../domain/lease-metadata.js";
import { listedEnvironmentId } from "../../domain/listed-environment.js";
import { toMask } from "./masks.js";
import {
  type EnvironmentRef,
  emptyLeaseColumns,
  INVENTORY_VIEW_VERSION,
  type InventoryView,
  type LeasekeeperActionView,
  MAX_PROBLEMS_IN_VIEW,
} from "./schema.js";

function epochSeconds(iso: string | null | undefined): number {
  if (!iso) return 0;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** A short shape string recorded in the lease's metadata, for a sandbox the listing did not show. */
function recordedShape(metadata: unknown): string | null {
  const object = metadataObject(metadata);
  const shape = object === null ? undefined : recorded(object, "shape");
  return typeof shape === "string" && shape.length <= 100 ? shape : null;
}

class Interner {
  readonly values: string[] = [];
  private readonly positions = new Map<string, number>();
  indexOf(value: string | null | undefined): number {
    if (value === null || value === undefined) return -1;
    let at = this.positions.get(value);
    if (at === undefined) {
      at = this.values.length;
      this.values.push(value);
      this.positions.set(value, at);
    }
    return at;
  }
}

function emptyCounts(): Record<Headline, number> {
  return Object.fromEntries(HEADLINES.map((headline) => [headline, 0])) as Record<Headline, number>;
}

export interface EncodeOptions {
  /** Keep only rows listed under this environment id. */
  environmentId?: string | null;
  /**
   * Leave `closed` rows out of `leases` and count them in `history` (what main and the renderer get);
   * their environments are listed all the same. Without it every row is encoded (history pages, tests).
   */
  leaveOutHistory?: boolean;
  /**
   * `closed` rows the inventory no longer carries because they are kept elsewhere (the inventory worker
   * keeps saved history in the store, not in its heap): counted in `history` and in the environments
   * they were listed under as if they were among `leases`. Only with `leaveOutHistory`.
   */
  historyElsewhere?: HistoryElsewhere;
}

/** What the view needs of rows kept elsewhere to count them as its own (see `EncodeOptions`). */
export interface HistoryElsewhere {
  /**
   * Every environment the whole inventory's rows gave an entry of their own (a row whose environment
   * its source does not list), in the order its rows first named them: the entries come out in the
   * order the whole inventory gives them, whichever of their rows are left.
   */
  unlistedEnvironments: readonly UnlistedEnvironment[];
  /** How many `closed` rows are kept elsewhere, by `historyKey(sourceId, environmentId)`. */
  closed: ReadonlyMap<string, number>;
}

export interface UnlistedEnvironment {
  sourceId: string;
  environmentId: string | null;
  companyId: string | null;
  name: string;
  known: boolean;
}

/** The environment a row is listed under, as the view gives it an entry when its source lists none. */
export function unlistedEnvironmentOf(classified: ClassifiedLease): UnlistedEnvironment {
  return {
    sourceId: classified.sourceId,
    environmentId: listedEnvironmentId(classified),
    companyId: classified.environment?.companyId ?? classified.lease.companyId,
    name: classified.environment?.name ?? "",
    known: classified.environment !== null,
  };
}

/** The key of an environment as `HistoryElsewhere.closed` counts it. */
export function historyKey(sourceId: string, environmentId: string | null): string {
  return JSON.stringify([sourceId, environmentId]);
}

/** Inventory → the compact view that crosses the contract (built once per inventory, in the inventory worker). */
export function encodeInventory(inventory: Inventory, options: EncodeOptions = {}): InventoryView {
  const filter = options.environmentId ?? null;
  const leaveOutHistory = options.leaveOutHistory ?? false;
  const historyByEnvironment: number[] = [];
  const companies = new Interner();
  const origins = new Interner();
  const statuses = new Interner();
  const policies = new Interner();
  const shapes = new Interner();
  const actedOn: LeasekeeperActionView[] = [];
  const actedOnIndex = new Map<object, number>();
  // One entry per mark: the rows that name one sandbox share the mark object the inventory gave them.
  const actedOnAt = (mark: LeasekeeperActionView | null | undefined): number => {
    if (mark == null) return -1;
    let position = actedOnIndex.get(mark);
    if (position === undefined) {
      position = actedOn.length;
      actedOn.push({ ...mark });
      actedOnIndex.set(mark, position);
    }
    return position;
  };
  const environments: EnvironmentRef[] = [];
  const environmentIndex = new Map<string, number>();
  const synthesized = new Set<number>();
  const environmentKey = historyKey;
  const elsewhere = leaveOutHistory ? (options.historyElsewhere ?? null) : null;

  for (const summary of inventory.environments) {
    if (filter !== null && summary.environmentId !== filter) continue;
    environmentIndex.set(environmentKey(summary.sourceId, summary.environmentId), environments.length);
    environments.push({
      sourceId: summary.sourceId,
      environmentId: summary.environmentId,
      company: companies.indexOf(summary.companyId),
      name: summary.name,
      known: true,
      counts: { ...emptyCounts(), ...summary.counts },
    });
  }
  /** An entry of its own for an environment its source does not list (rows of an orphan name it). */
  const addUnlisted = (unlisted: UnlistedEnvironment, key: string, counts: Record<Headline, number>) => {
    const at = environments.length;
    environmentIndex.set(key, at);
    synthesized.add(at);
    environments.push({
      sourceId: unlisted.sourceId,
      environmentId: unlisted.environmentId,
      company: companies.indexOf(unlisted.companyId),
      name: unlisted.name,
      known: unlisted.known,
      counts,
    });
    return at;
  };
  for (const unlisted of elsewhere?.unlistedEnvironments ?? []) {
    if (filter !== null && unlisted.environmentId !== filter) continue;
    const key = environmentKey(unlisted.sourceId, unlisted.environmentId);
    if (environmentIndex.has(key)) continue;
    addUnlisted(unlisted, key, { ...emptyCounts(), closed: elsewhere?.closed.get(key) ?? 0 });
  }

  const leases = emptyLeaseColumns();
  for (const classified of inventory.leases) {
    const { lease, verdict, provider } = classified;
    const environmentId = listedEnvironmentId(classified);
    if (filter !== null && environmentId !== filter) continue;
    const key = environmentKey(classified.sourceId, environmentId);
    const environmentAt =
      environmentIndex.get(key) ?? addUnlisted(unlistedEnvironmentOf(classified), key, emptyCounts());
    // Listed environments carry the scanner's counts; an entry made here counts its own rows.
    if (synthesized.has(environmentAt)) environments[environmentAt]!.counts[verdict.headline] += 1;
    if (leaveOutHistory && verdict.headline === "closed") {
      historyByEnvironment[environmentAt] = (historyByEnvironment[environmentAt] ?? 0) + 1;
      continue;
    }

    const confirmation = verdict.destroyConfirmation
      ? DESTROY_CONFIRMATIONS.indexOf(verdict.destroyConfirmation) + 1
      : 0;
    const actions =
      toMask(ACTION_KINDS, verdict.allowedActions) |
      (toMask(ACTION_KINDS, verdict.overridableActions) << ACTION_KINDS.length);
    leases.leaseId.push(lease.id);
    leases.environment.push(environmentAt);
    leases.sandboxId.push(lease.providerLeaseId);
    leases.status.push(statuses.indexOf(lease.status));
    leases.policy.push(policies.indexOf(lease.leasePolicy));
    leases.headline.push(HEADLINES.indexOf(verdict.headline));
    leases.provider.push(PROVIDER_CODES.indexOf(provider.code));
    leases.ownership.push(toMask(OWNERSHIP_CODES, verdict.ownership));
    leases.flags.push(toMask(ROW_FLAGS, verdict.flags));
    leases.actions.push(actions);
    leases.confirmation.push(confirmation);
    leases.origin.push(origins.indexOf(provider.origin));
    leases.acquiredAt.push(epochSeconds(lease.acquiredAt));
    leases.lastUsedAt.push(epochSeconds(lease.lastUsedAt));
    leases.shared.push(classified.sharedWithCount ?? classified.sharedWith.length);
    leases.company.push(companies.indexOf(lease.companyId));
    leases.unknownReason.push(provider.unknownReason ? UNKNOWN_REASONS.indexOf(provider.unknownReason) : -1);
    leases.actedOnBy.push(actedOnAt(provider.actedOnBy));
    leases.shape.push(shapes.indexOf(provider.sandbox?.shape ?? recordedShape(lease.metadata)));
  }

  const uncertainCounts = new Map<
    string,
    { credential: string; origin: string; count: number; reason: string }
  >();
  for (const sandbox of inventory.untrackedUncertain) {
    const key = JSON.stringify([sandbox.credential, sandbox.origin]);
    const entry = uncertainCounts.get(key) ?? {
      credential: sandbox.credential,
      origin: sandbox.origin,
      count: 0,
      reason: sandbox.reason,
    };
    entry.count += 1;
    uncertainCounts.set(key, entry);
  }
  const companyName = new Map(inventory.companies.map((company) => [company.id, company.name]));

  const untrackedCounts = new Map<string, { credential: string; origin: string; count: number }>();
  for (const sandbox of inventory.untracked) {
    const key = JSON.stringify([sandbox.credential, sandbox.origin]);
    const entry = untrackedCounts.get(key) ?? {
      credential: sandbox.credential,
      origin: sandbox.origin,
      count: 0,
    };
    entry.count += 1;
    untrackedCounts.set(key, entry);
  }

  const byEnvironment = Array.from(
    environments,
    (environment, at) =>
      (historyByEnvironment[at] ?? 0) +
      (elsewhere?.closed.get(environmentKey(environment.sourceId, environment.environmentId)) ?? 0),
  );
  return {
    version: INVENTORY_VIEW_VERSION,
    generatedAt: inventory.generatedAt,
    requests: inventory.requests,
    environmentId: filter,
    environments,
    companies: companies.values,
    companyNames: companies.values.map((id) => companyName.get(id) ?? null),
    origins: origins.values,
    statuses: statuses.values,
    policies: policies.values,
    shapes: shapes.values,
    actedOn,
    leases,
    history: { count: byEnvironment.reduce((sum, count) => sum + count, 0), byEnvironment },
    untracked: [...untrackedCounts.values()],
    untrackedUncertain: [...uncertainCounts.values()],
    gaps: inventory.gaps.slice(0, MAX_PROBLEMS_IN_VIEW).map(({ source, origin, message }) => ({
      source,
      origin,
      message,
    })),
    originHealth: inventory.origins.map((health) => ({
      origin: health.origin,
      credential: health.credential,
      ok: health.ok,
      reason: health.reason,
      httpStatus: health.httpStatus,
      sandboxCount: health.sandboxCount,
    })),
    problems: inventory.problems.slice(0, MAX_PROBLEMS_IN_VIEW).map((problem) => ({
      source: problem.source,
      index: problem.index,
      message: problem.message,
    })),
    problemCount: inventory.problems.length,
  };
}
