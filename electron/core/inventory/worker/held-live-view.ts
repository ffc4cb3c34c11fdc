import {
  emptyLeaseColumns,
  historyKey,
  type InventoryView,
  InventoryViewBuilder,
  type LeaseColumns,
  type LeasekeeperActionView,
  type LeaseViewRow,
} from "../../../../shared/contract/index.js";
import { HEADLINES } from "../../../../shared/domain/codes.js";
import type { ChangedRows, InventoryRows, StoredHead, StoredScan } from "./ports.js";
import { compareRowPlaces } from "./row-order.js";

/**
 * The view of a stored scan's live rows as `InventoryViewBuilder` makes it (before the configured keys
 * are taken out of it), with each row's place in its source's order: what the next scan's view is
 * patched from (`patchedLiveView`).
 */
export interface HeldLiveView {
  scan: StoredScan;
  view: InventoryView;
  /** The `seq` of each of the view's rows, by row. */
  seqs: number[];
}

/** The view read from every live row of the scan `head` holds; null: the store no longer holds it. */
export function wholeLiveView(rows: InventoryRows, head: StoredHead): HeldLiveView | null {
  const builder = new InventoryViewBuilder(head.inventory, {
    leaveOutHistory: true,
    historyElsewhere: head.history,
  });
  const seqs: number[] = [];
  const read = rows.forEachLiveViewRow(head.scan, (row, seq) => {
    builder.add(row);
    // The builder counts a row whose view says closed as history, and holds no place for it.
    if (HEADLINES[row[9]] !== "closed") seqs.push(seq);
  });
  return read ? { scan: head.scan, view: builder.finish(), seqs } : null;
}

/**
 * The view of the scan `head` holds, made from the view of the scan it was written over (`previous`)
 * and the rows the flip changed (`changed`), reading only those: the same view, value for value and
 * key for key, that `wholeLiveView` reads from every live row. Null where that is not certain, and the
 * view is then read whole: the flip was not written over `previous`, the sources are others, the store
 * no longer holds the scan, or a row names an environment the head does not give an entry (the builder
 * would make one as the row comes, or take its name and company from it).
 *
 * The builder numbers each table (companies, origins, statuses, policies, shapes, the marks acted on)
 * in the order its values first come: the companies of the environments first, then the rows' values
 * in row order. The rows here are put in the view's order first and each value numbered as it first
 * comes, so a row changed, gone or added before another renumbers it as the builder would.
 */
export function patchedLiveView(
  rows: InventoryRows,
  previous: HeldLiveView,
  head: StoredHead,
  changed: ChangedRows,
): HeldLiveView | null {
  const sourceIds = head.scan.sourceIds;
  if (changed.since !== previous.scan.generation) return null;
  if (
    previous.scan.sourceIds.length !== sourceIds.length ||
    previous.scan.sourceIds.some((sourceId, at) => sourceId !== sourceIds[at])
  )
    return null;
  const written = rows.liveViewRowsOf(head.scan, changed.keys);
  if (written === null) return null;

  // Everything but the rows, as the builder makes it before the first row comes.
  const base = new InventoryViewBuilder(head.inventory, {
    leaveOutHistory: true,
    historyElsewhere: head.history,
  }).finish();
  const environmentAt = new Map<string, number>();
  for (const [at, { sourceId, environmentId }] of base.environments.entries())
    environmentAt.set(historyKey(sourceId, environmentId), at);
  // The entries made for environments no source lists come after the listed ones, each with the lease
  // id it was taken from: a row with a smaller one would give it its own name and company.
  const listed = head.inventory.environments.length;
  const takenFrom = new Map<number, string>();
  for (const unlisted of head.history.unlistedEnvironments) {
    const at = environmentAt.get(historyKey(unlisted.sourceId, unlisted.environmentId));
    if (at !== undefined && at >= listed && !takenFrom.has(at)) takenFrom.set(at, unlisted.leaseId);
  }
  const sourceAt = new Map(sourceIds.map((sourceId, at) => [sourceId, at]));

  const tables = new WorkingTables(previous.view);
  const before = previous.view;
  // Each of the previous view's environments as this view numbers it (-1: it has none), its source's
  // place, and the rows the flip changed in that source.
  const environmentNow = before.environments.map(
    ({ sourceId, environmentId }) => environmentAt.get(historyKey(sourceId, environmentId)) ?? -1,
  );
  const sourceOf = before.environments.map(({ sourceId }) => sourceAt.get(sourceId) ?? -1);
  const changedIn = before.environments.map(({ sourceId }) => changed.keys.get(sourceId));

  const added: CodedRow[] = [];
  for (const { row, seq } of written) {
    const source = sourceAt.get(row[0]);
    const environment = environmentAt.get(historyKey(row[0], row[1]));
    if (source === undefined || environment === undefined || HEADLINES[row[9]] === "closed") return null;
    added.push({ source, seq, leaseId: row[5], environment, row, codes: tables.code(row) });
  }
  added.sort(compareRowPlaces);

  const out = new RenumberedRows(tables, base.companies, takenFrom, base.environments);
  const columns = before.leases;
  let next = 0;
  for (let at = 0; at < columns.leaseId.length; at++) {
    const environment = columns.environment[at]!;
    const leaseId = columns.leaseId[at]!;
    if (changedIn[environment]?.has(leaseId)) continue;
    const place = { source: sourceOf[environment]!, seq: previous.seqs[at]!, leaseId };
    if (place.source < 0 || environmentNow[environment]! < 0) return null;
    while (next < added.length && compareRowPlaces(added[next]!, place) < 0) {
      if (!out.addCoded(added[next]!)) return null;
      next += 1;
    }
    if (!out.addKept(columns, at, environmentNow[environment]!, place.seq)) return null;
  }
  for (; next < added.length; next++) if (!out.addCoded(added[next]!)) return null;

  const companyName = new Map(head.inventory.companies.map((company) => [company.id, company.name]));
  const companies = out.values.companies;
  const view: InventoryView = {
    ...base,
    companies,
    companyNames: companies.map((id) => companyName.get(id) ?? null),
    origins: out.values.origins,
    statuses: out.values.statuses,
    policies: out.values.policies,
    shapes: out.values.shapes,
    actedOn: out.actedOn,
    leases: out.leases,
  };
  return { scan: head.scan, view, seqs: out.seqs };
}

/** The tables a view interns its rows' strings in, as the builder names them. */
type TableName = "companies" | "origins" | "statuses" | "policies" | "shapes";
const TABLES: readonly TableName[] = ["companies", "origins", "statuses", "policies", "shapes"];

/** A row's entries in the working tables (see `WorkingTables`). */
interface Codes {
  status: number;
  policy: number;
  origin: number;
  company: number;
  actedOn: number;
  shape: number;
}

/** A row the flip changed, with its place and its strings numbered in the working tables. */
interface CodedRow {
  source: number;
  seq: number;
  leaseId: string;
  environment: number;
  row: LeaseViewRow;
  codes: Codes;
}

/**
 * The previous view's tables, numbered as that view numbers them, with the values it lacks put after
 * as they are asked for: each value has one number here, from which the new view's numbering is made.
 */
class WorkingTables {
  readonly values: Record<TableName, string[]>;
  readonly #at: Record<TableName, Map<string, number>>;
  readonly actedOn: LeasekeeperActionView[];
  readonly #actedOnAt: Map<string, number>;

  constructor(view: InventoryView) {
    this.values = {
      companies: [...view.companies],
      origins: [...view.origins],
      statuses: [...view.statuses],
      policies: [...view.policies],
      shapes: [...view.shapes],
    };
    this.#at = Object.fromEntries(
      TABLES.map((name) => [name, new Map(this.values[name].map((value, at) => [value, at]))]),
    ) as Record<TableName, Map<string, number>>;
    this.actedOn = [...view.actedOn];
    this.#actedOnAt = new Map(this.actedOn.map((mark, at) => [JSON.stringify(mark), at]));
  }

  indexOf(name: TableName, value: string | null | undefined): number {
    if (value === null || value === undefined) return -1;
    const at = this.#at[name];
    let position = at.get(value);
    if (position === undefined) {
      position = this.values[name].length;
      this.values[name].push(value);
      at.set(value, position);
    }
    return position;
  }

  /** A mark as the builder holds it: one entry per content, a copy of the first row's. */
  markAt(mark: LeasekeeperActionView | null): number {
    if (mark === null) return -1;
    const key = JSON.stringify(mark);
    let position = this.#actedOnAt.get(key);
    if (position === undefined) {
      position = this.actedOn.length;
      this.actedOn.push({ ...mark });
      this.#actedOnAt.set(key, position);
    }
    return position;
  }

  code(row: LeaseViewRow): Codes {
    return {
      status: this.indexOf("statuses", row[7]),
      policy: this.indexOf("policies", row[8]),
      origin: this.indexOf("origins", row[15]),
      company: this.indexOf("companies", row[19]),
      actedOn: this.markAt(row[21]),
      shape: this.indexOf("shapes", row[22]),
    };
  }
}

/**
 * The new view's rows, added in its order: each table's values numbered as they first come, after the
 * environments' companies, as the builder numbers them; the entries made for environments no source
 * lists count their rows by headline, as the builder's do.
 */
class RenumberedRows {
  readonly leases: LeaseColumns = emptyLeaseColumns();
  readonly seqs: number[] = [];
  readonly values: Record<TableName, string[]> = {
    companies: [],
    origins: [],
    statuses: [],
    policies: [],
    shapes: [],
  };
  readonly actedOn: LeasekeeperActionView[] = [];
  readonly #tables: WorkingTables;
  /** Each working number's number in the new view, -1 until its value first comes. */
  readonly #numbers: Record<TableName, Int32Array>;
  readonly #markNumbers: Int32Array;
  readonly #takenFrom: ReadonlyMap<number, string>;
  readonly #environments: InventoryView["environments"];

  constructor(
    tables: WorkingTables,
    environmentCompanies: readonly string[],
    takenFrom: ReadonlyMap<number, string>,
    environments: InventoryView["environments"],
  ) {
    this.#tables = tables;
    this.#takenFrom = takenFrom;
    this.#environments = environments;
    const first = environmentCompanies.map((company) => tables.indexOf("companies", company));
    this.#numbers = Object.fromEntries(
      TABLES.map((name) => [name, new Int32Array(tables.values[name].length).fill(-1)]),
    ) as Record<TableName, Int32Array>;
    this.#markNumbers = new Int32Array(tables.actedOn.length).fill(-1);
    for (const at of first) this.#number("companies", at);
  }

  #number(name: TableName, at: number): number {
    if (at < 0) return -1;
    const numbers = this.#numbers[name];
    let number = numbers[at]!;
    if (number < 0) {
      number = this.values[name].length;
      this.values[name].push(this.#tables.values[name][at]!);
      numbers[at] = number;
    }
    return number;
  }

  #mark(at: number): number {
    if (at < 0) return -1;
    let number = this.#markNumbers[at]!;
    if (number < 0) {
      number = this.actedOn.length;
      this.actedOn.push(this.#tables.actedOn[at]!);
      this.#markNumbers[at] = number;
    }
    return number;
  }

  /**
   * Counts a row in the entry made for an environment no source lists; false where the row would
   * give that entry its name and company (its lease id is smaller than the one it was taken from).
   */
  #counted(environment: number, headline: number, leaseId: string): boolean {
    const from = this.#takenFrom.get(environment);
    if (from === undefined) return true;
    if (leaseId < from) return false;
    this.#environments[environment]!.counts[HEADLINES[headline] ?? "unknown"] += 1;
    return true;
  }

  /** A row of the previous view that the flip did not change, at `at` of its columns. */
  addKept(columns: LeaseColumns, at: number, environment: number, seq: number): boolean {
    const leaseId = columns.leaseId[at]!;
    if (!this.#counted(environment, columns.headline[at]!, leaseId)) return false;
    const leases = this.leases;
    leases.leaseId.push(leaseId);
    leases.environment.push(environment);
    leases.sandboxId.push(columns.sandboxId[at]!);
    leases.status.push(this.#number("statuses", columns.status[at]!));
    leases.policy.push(this.#number("policies", columns.policy[at]!));
    leases.headline.push(columns.headline[at]!);
    leases.provider.push(columns.provider[at]!);
    leases.ownership.push(columns.ownership[at]!);
    leases.flags.push(columns.flags[at]!);
    leases.actions.push(columns.actions[at]!);
    leases.confirmation.push(columns.confirmation[at]!);
    leases.origin.push(this.#number("origins", columns.origin[at]!));
    leases.acquiredAt.push(columns.acquiredAt[at]!);
    leases.lastUsedAt.push(columns.lastUsedAt[at]!);
    leases.shared.push(columns.shared[at]!);
    leases.company.push(this.#number("companies", columns.company[at]!));
    leases.unknownReason.push(columns.unknownReason[at]!);
    leases.actedOnBy.push(this.#mark(columns.actedOnBy[at]!));
    leases.shape.push(this.#number("shapes", columns.shape[at]!));
    this.seqs.push(seq);
    return true;
  }

  /** A row the flip wrote or moved, as the store holds it now. */
  addCoded({ row, codes, environment, seq }: CodedRow): boolean {
    if (!this.#counted(environment, row[9], row[5])) return false;
    const leases = this.leases;
    leases.leaseId.push(row[5]);
    leases.environment.push(environment);
    leases.sandboxId.push(row[6]);
    leases.status.push(this.#number("statuses", codes.status));
    leases.policy.push(this.#number("policies", codes.policy));
    leases.headline.push(row[9]);
    leases.provider.push(row[10]);
    leases.ownership.push(row[11]);
    leases.flags.push(row[12]);
    leases.actions.push(row[13]);
    leases.confirmation.push(row[14]);
    leases.origin.push(this.#number("origins", codes.origin));
    leases.acquiredAt.push(row[16]);
    leases.lastUsedAt.push(row[17]);
    leases.shared.push(row[18]);
    leases.company.push(this.#number("companies", codes.company));
    leases.unknownReason.push(row[20]);
    leases.actedOnBy.push(this.#mark(codes.actedOn));
    leases.shape.push(this.#number("shapes", codes.shape));
    this.seqs.push(seq);
    return true;
  }
}
