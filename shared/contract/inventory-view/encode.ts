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
import { unreadOfGaps } from "./unread.js";

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

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
   * Every environment the whole inventory's rows give an entry of their own (a row whose environment
   * its source does not list), each as the row naming it with the smallest lease id gives it (in any
   * order): the entries come out as the whole inventory gives them, whichever of their rows are left.
   */
  unlistedEnvironments: readonly UnlistedEnvironment[];
  /** How many `closed` rows are kept elsewhere, by `historyKey(sourceId, environmentId)`. */
  closed: ReadonlyMap<string, number>;
}

/**
 * The entry a view gives an environment its source does not list. Several rows may name it, each with
 * its own company: the entry is the one the row with the smallest lease id gives (`leaseId`), so it is
 * the same whatever order the rows come in.
 */
export interface UnlistedEnvironment {
  sourceId: string;
  environmentId: string | null;
  companyId: string | null;
  name: string;
  known: boolean;
  leaseId: string;
}

/** The environment a row is listed under, as the view gives it an entry when its source lists none. */
export function unlistedEnvironmentOf(classified: ClassifiedLease): UnlistedEnvironment {
  return {
    sourceId: classified.sourceId,
    environmentId: listedEnvironmentId(classified),
    companyId: classified.environment?.companyId ?? classified.lease.companyId,
    name: classified.environment?.name ?? "",
    known: classified.environment !== null,
    leaseId: classified.lease.id,
  };
}

/** The key of an environment as `HistoryElsewhere.closed` counts it. */
export function historyKey(sourceId: string, environmentId: string | null): string {
  return JSON.stringify([sourceId, environmentId]);
}

/**
 * One lease as the view holds it, its repeated strings not yet put in lookup tables: where it is listed
 * (its source, environment, and the entry its environment gets when its source lists none), then one
 * value per lease column (`LEASE_COLUMNS`), a string where the column is an index into a table. The
 * store keeps it for every live row, so a view is put together from the store without judging or
 * parsing any row again (decision 222).
 */
export type LeaseViewRow = [
  sourceId: string,
  environmentId: string | null,
  unlistedCompanyId: string | null,
  unlistedName: string,
  environmentKnown: boolean,
  leaseId: string,
  sandboxId: string | null,
  status: string,
  policy: string,
  headline: number,
  provider: number,
  ownership: number,
  flags: number,
  actions: number,
  confirmation: number,
  origin: string | null,
  acquiredAt: number,
  lastUsedAt: number,
  shared: number,
  company: string | null,
  unknownReason: number,
  actedOnBy: LeasekeeperActionView | null,
  shape: string | null,
];

/** A classified lease as the view holds it (see `LeaseViewRow`). */
export function leaseViewRow(classified: ClassifiedLease): LeaseViewRow {
  const { lease, verdict, provider } = classified;
  const unlisted = unlistedEnvironmentOf(classified);
  const confirmation = verdict.destroyConfirmation
    ? DESTROY_CONFIRMATIONS.indexOf(verdict.destroyConfirmation) + 1
    : 0;
  return [
    classified.sourceId,
    unlisted.environmentId,
    unlisted.companyId,
    unlisted.name,
    unlisted.known,
    lease.id,
    lease.providerLeaseId,
    lease.status,
    lease.leasePolicy,
    HEADLINES.indexOf(verdict.headline),
    PROVIDER_CODES.indexOf(provider.code),
    toMask(OWNERSHIP_CODES, verdict.ownership),
    toMask(ROW_FLAGS, verdict.flags),
    toMask(ACTION_KINDS, verdict.allowedActions) |
      (toMask(ACTION_KINDS, verdict.overridableActions) << ACTION_KINDS.length),
    confirmation,
    provider.origin,
    epochSeconds(lease.acquiredAt),
    epochSeconds(lease.lastUsedAt),
    classified.sharedWithCount ?? classified.sharedWith.length,
    lease.companyId,
    provider.unknownReason ? UNKNOWN_REASONS.indexOf(provider.unknownReason) : -1,
    provider.actedOnBy ?? null,
    provider.sandbox?.shape ?? recordedShape(lease.metadata),
  ];
}

/** Inventory → the compact view that crosses the contract (built once per inventory, in the inventory worker). */
export function encodeInventory(inventory: Inventory, options: EncodeOptions = {}): InventoryView {
  const builder = new InventoryViewBuilder(inventory, options);
  for (const classified of inventory.leases) builder.add(leaseViewRow(classified));
  return builder.finish();
}

/**
 * The compact view put together a row at a time: `inventory` gives everything but the rows (its
 * `leases` are not read), `add` takes the rows in inventory order, `finish` hands back the view.
 */
export class InventoryViewBuilder {
  readonly #inventory: Omit<Inventory, "leases">;
  readonly #filter: string | null;
  readonly #leaveOutHistory: boolean;
  readonly #elsewhere: HistoryElsewhere | null;
  readonly #historyByEnvironment: number[] = [];
  readonly #companies = new Interner();
  readonly #origins = new Interner();
  readonly #statuses = new Interner();
  readonly #policies = new Interner();
  readonly #shapes = new Interner();
  readonly #actedOn: LeasekeeperActionView[] = [];
  /** One entry per mark, by its content: rows read back from the store each carry a copy of it. */
  readonly #actedOnIndex = new Map<string, number>();
  readonly #environments: EnvironmentRef[] = [];
  readonly #environmentIndex = new Map<string, number>();
  /** The entries made for environments no source lists, by position: the lease id each was taken from. */
  readonly #synthesized = new Map<number, string>();
  readonly #leases = emptyLeaseColumns();

  constructor(inventory: Omit<Inventory, "leases">, options: EncodeOptions = {}) {
    this.#inventory = inventory;
    this.#filter = options.environmentId ?? null;
    this.#leaveOutHistory = options.leaveOutHistory ?? false;
    this.#elsewhere = this.#leaveOutHistory ? (options.historyElsewhere ?? null) : null;
    const filter = this.#filter;
    for (const summary of inventory.environments) {
      if (filter !== null && summary.environmentId !== filter) continue;
      this.#environmentIndex.set(
        historyKey(summary.sourceId, summary.environmentId),
        this.#environments.length,
      );
      this.#environments.push({
        sourceId: summary.sourceId,
        environmentId: summary.environmentId,
        company: this.#companies.indexOf(summary.companyId),
        name: summary.name,
        known: true,
        counts: { ...emptyCounts(), ...summary.counts },
      });
    }
    for (const unlisted of this.#elsewhere?.unlistedEnvironments ?? []) {
      if (filter !== null && unlisted.environmentId !== filter) continue;
      const key = historyKey(unlisted.sourceId, unlisted.environmentId);
      if (this.#environmentIndex.has(key)) continue;
      this.#addUnlisted(unlisted, key, { ...emptyCounts(), closed: this.#elsewhere?.closed.get(key) ?? 0 });
    }
  }

  /** An entry of its own for an environment its source does not list (rows of an orphan name it). */
  #addUnlisted(unlisted: UnlistedEnvironment, key: string, counts: Record<Headline, number>): number {
    const at = this.#environments.length;
    this.#environmentIndex.set(key, at);
    this.#synthesized.set(at, unlisted.leaseId);
    this.#environments.push({
      sourceId: unlisted.sourceId,
      environmentId: unlisted.environmentId,
      company: this.#companies.indexOf(unlisted.companyId),
      name: unlisted.name,
      known: unlisted.known,
      counts,
    });
    return at;
  }

  /**
   * The environments, the entries made for environments no source lists after the listed ones, by
   * source and id (an orphan's null last): the same order whatever order their rows came in. The rows'
   * environment indexes are moved with them.
   */
  #placeUnlistedLast(): EnvironmentRef[] {
    const listed = this.#environments.length - this.#synthesized.size;
    const unlisted = [...this.#synthesized.keys()].sort((a, b) => {
      const [x, y] = [this.#environments[a]!, this.#environments[b]!];
      return (
        compareText(x.sourceId, y.sourceId) ||
        (x.environmentId === null ? 1 : 0) - (y.environmentId === null ? 1 : 0) ||
        compareText(x.environmentId ?? "", y.environmentId ?? "")
      );
    });
    if (unlisted.every((from, to) => from === listed + to)) return this.#environments;
    const moved = new Map(unlisted.map((from, to) => [from, listed + to]));
    const column = this.#leases.environment;
    for (let row = 0; row < column.length; row++) column[row] = moved.get(column[row]!) ?? column[row]!;
    const history: number[] = [];
    for (const [at, count] of this.#historyByEnvironment.entries()) history[moved.get(at) ?? at] = count ?? 0;
    this.#historyByEnvironment.length = 0;
    this.#historyByEnvironment.push(...history);
    return [...this.#environments.slice(0, listed), ...unlisted.map((at) => this.#environments[at]!)];
  }

  #actedOnAt(mark: LeasekeeperActionView | null): number {
    if (mark === null) return -1;
    const key = JSON.stringify(mark);
    let position = this.#actedOnIndex.get(key);
    if (position === undefined) {
      position = this.#actedOn.length;
      this.#actedOn.push({ ...mark });
      this.#actedOnIndex.set(key, position);
    }
    return position;
  }

  add(row: LeaseViewRow): void {
    const [sourceId, environmentId, unlistedCompanyId, unlistedName, environmentKnown, leaseId] = row;
    if (this.#filter !== null && environmentId !== this.#filter) return;
    const key = historyKey(sourceId, environmentId);
    const headline = HEADLINES[row[9]] ?? "unknown";
    const unlisted = {
      sourceId,
      environmentId,
      companyId: unlistedCompanyId,
      name: unlistedName,
      known: environmentKnown,
      leaseId,
    };
    const environmentAt = this.#environmentIndex.get(key) ?? this.#addUnlisted(unlisted, key, emptyCounts());
    // Listed environments carry the scanner's counts; an entry made here counts its own rows.
    const takenFrom = this.#synthesized.get(environmentAt);
    if (takenFrom !== undefined) {
      const entry = this.#environments[environmentAt]!;
      entry.counts[headline] += 1;
      if (leaseId < takenFrom) {
        this.#synthesized.set(environmentAt, leaseId);
        entry.company = this.#companies.indexOf(unlistedCompanyId);
        entry.name = unlistedName;
        entry.known = environmentKnown;
      }
    }
    if (this.#leaveOutHistory && headline === "closed") {
      this.#historyByEnvironment[environmentAt] = (this.#historyByEnvironment[environmentAt] ?? 0) + 1;
      return;
    }
    const leases = this.#leases;
    leases.leaseId.push(row[5]);
    leases.environment.push(environmentAt);
    leases.sandboxId.push(row[6]);
    leases.status.push(this.#statuses.indexOf(row[7]));
    leases.policy.push(this.#policies.indexOf(row[8]));
    leases.headline.push(row[9]);
    leases.provider.push(row[10]);
    leases.ownership.push(row[11]);
    leases.flags.push(row[12]);
    leases.actions.push(row[13]);
    leases.confirmation.push(row[14]);
    leases.origin.push(this.#origins.indexOf(row[15]));
    leases.acquiredAt.push(row[16]);
    leases.lastUsedAt.push(row[17]);
    leases.shared.push(row[18]);
    leases.company.push(this.#companies.indexOf(row[19]));
    leases.unknownReason.push(row[20]);
    leases.actedOnBy.push(this.#actedOnAt(row[21]));
    leases.shape.push(this.#shapes.indexOf(row[22]));
  }

  finish(): InventoryView {
    const environments = this.#placeUnlistedLast();
    const elsewhere = this.#elsewhere;
    const byEnvironment = Array.from(
      environments,
      (environment, at) =>
        (this.#historyByEnvironment[at] ?? 0) +
        (elsewhere?.closed.get(historyKey(environment.sourceId, environment.environmentId)) ?? 0),
    );
    return viewAroundRows(this.#inventory, this.#filter, {
      environments,
      companies: this.#companies.values,
      origins: this.#origins.values,
      statuses: this.#statuses.values,
      policies: this.#policies.values,
      shapes: this.#shapes.values,
      actedOn: this.#actedOn,
      leases: this.#leases,
      history: { count: byEnvironment.reduce((sum, count) => sum + count, 0), byEnvironment },
    });
  }
}

/**
 * What of a view its rows decide, with the environments (the entries rows of an unlisted environment
 * make, and every table the rows' columns index into, are numbered as the rows come).
 */
export type RowParts = Pick<
  InventoryView,
  | "environments"
  | "companies"
  | "origins"
  | "statuses"
  | "policies"
  | "shapes"
  | "actedOn"
  | "leases"
  | "history"
>;

/** The view of `inventory`'s scan-wide parts around the parts its rows decide (`rows`). */
export function viewAroundRows(
  inventory: Omit<Inventory, "leases">,
  environmentId: string | null,
  rows: RowParts,
): InventoryView {
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

  return {
    version: INVENTORY_VIEW_VERSION,
    generatedAt: inventory.generatedAt,
    requests: inventory.requests,
    environmentId,
    environments: rows.environments,
    companies: rows.companies,
    companyNames: rows.companies.map((id) => companyName.get(id) ?? null),
    origins: rows.origins,
    statuses: rows.statuses,
    policies: rows.policies,
    shapes: rows.shapes,
    actedOn: rows.actedOn,
    leases: rows.leases,
    history: rows.history,
    untracked: [...untrackedCounts.values()],
    untrackedUncertain: [...uncertainCounts.values()],
    gaps: inventory.gaps
      .slice(0, MAX_PROBLEMS_IN_VIEW)
      .map(({ source, origin, message, environmentId, unlistedOnly }) => ({
        source,
        origin,
        message,
        ...(environmentId === undefined ? {} : { environmentId }),
        ...(unlistedOnly === true ? { unlistedOnly } : {}),
      })),
    gapCount: inventory.gaps.length,
    unread: unreadOfGaps(inventory.gaps, rows.environments),
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
