import type { ActionSelection, AuditEntry, AuditQuery } from "../../../shared/domain/actions.js";
import type { Inventory, ProviderSandbox } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow, SourceGap } from "../../../shared/domain/paperclip.js";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import type { AuditRecord } from "./audit/audit-records.js";

/**
 * What the action engine needs from the rest of the core, as narrow interfaces. The engine is wired to
 * the real inventory, lease sources, CreateOS client and team store in `electron/core/compose/`; keeping
 * these small is what lets the plan and guard rules be tested as pure functions and the job runner be
 * driven by the simulator.
 */

/** A fresh or recent inventory; `maxAgeMs` bounds how old a cached one may be. */
export interface InventoryPort {
  /**
   * An inventory scanned no more than `maxAgeMs` ago, as a plan of `selection` reads it: everything but
   * the rows, and of the rows those the selection picks and those they share a sandbox with.
   */
  forPlan(selection: ActionSelection, options: { maxAgeMs: number }): Promise<Inventory>;
}

export interface LeaseRef {
  sourceId: string;
  leaseId: string;
  /** Other rows that named the same sandbox at plan time; re-read too, as the override rule needs them. */
  sharedWith: readonly string[];
}

export interface RereadLease {
  lease: LeaseRow;
  /** The environment the row is listed under now; null for an orphan row. */
  environment: Environment | null;
  /** Every other row naming the same sandbox now (at least those of `sharedWith` that still exist). */
  others: LeaseRow[];
  /**
   * The CreateOS plugin installed on the row's instance now, where its source can read it: the re-check
   * judges the lease as that plugin will act on it. Absent, the verdict takes the reading that destroys less.
   */
  installedPlugin?: InstalledPlugin;
}

/**
 * Re-reads rows from their sources just before acting. Batched: a ledger file is read once for a batch
 * of items rather than once per item. Keyed by `sourceId + "\u0000" + leaseId` (see `leaseKey`); a row
 * that is no longer there maps to null; a source that cannot be read throws (and the items are failed,
 * never acted on).
 */
export interface LeaseRereader {
  reread(refs: readonly LeaseRef[]): Promise<Map<string, RereadLease | null>>;
  /**
   * Which of these sandbox ids any row of any source names now. An untracked sandbox is an orphan only
   * while no row names it: Paperclip writes the row of a sandbox it is provisioning after creating it.
   * Throws when a source cannot be read (the items are then failed, never acted on).
   */
  namedSandboxes(sandboxIds: readonly string[]): Promise<Set<string>>;
}

/** A batch's rows re-read, and the parts of the sources that could not be read as they were. */
export interface RowsReread {
  rows: Map<string, RereadLease | null>;
  /**
   * The gaps of every source this re-read reads whole: each ledger file (a row of it is re-read by
   * reading the file). A source re-read a row at a time (Paperclip's API or database) is not read whole
   * here, so a part of it that became unreadable since the plan is not among them.
   */
  gaps: SourceGap[];
}

/** Which sandboxes the rows of every source name now, and the parts of them that could not be read. */
export interface NamesNow {
  named: Set<string>;
  /** The gaps of every source, each read whole: a row in one of them may name any of the sandboxes. */
  gaps: SourceGap[];
}

/**
 * What a job reads of the sources just before sending: the rows and the names, as `LeaseRereader`
 * reads them, with the parts that could not be read instead of a refusal to answer. Throws only when a
 * source cannot be read at all (the items are then failed, never acted on).
 */
export interface JobRereader extends LeaseRereader {
  rereadBatch(refs: readonly LeaseRef[]): Promise<RowsReread>;
  namesNow(sandboxIds: readonly string[]): Promise<NamesNow>;
}

export function leaseKey(sourceId: string, leaseId: string): string {
  return `${sourceId}\u0000${leaseId}`;
}

/** Outcome of `POST /v1/sandboxes/{id}/pause`: 202, 200, 409, or 404 (which the plugin counts as done). */
export type PauseAnswer = "accepted" | "already" | "conflict" | "not-found";

/**
 * One CreateOS account (a credential at an origin), on the process-wide paced client. Every method
 * throws a `ProviderFailure` (see errors.ts) when CreateOS could not be asked or refused.
 */
export interface AccountClient {
  readonly origin: string;
  readonly credential: string;
  /** The origin's shared request budget; sizes how many items one re-check read may cover. */
  readonly requestsPerMinute: number;
  /** `GET /v1/whoami`: whose key this is (the account's user id), whatever the credential is called. */
  whoami(): Promise<string>;
  /** Every sandbox the account lists, all pages (`GET /v1/sandboxes?limit=500&offset=…`). */
  listSandboxes(): Promise<ProviderSandbox[]>;
  /** `GET /v1/sandboxes/{id}`; null on 404 (missing, or another account's). */
  getSandbox(sandboxId: string): Promise<ProviderSandbox | null>;
  /** `DELETE /v1/sandboxes/{id}`; a 404 is reported as such (it proves nothing: it is read back). */
  deleteSandbox(sandboxId: string): Promise<{ httpStatus: number }>;
  pauseSandbox(sandboxId: string): Promise<{ answer: PauseAnswer; httpStatus: number }>;
}

export interface ProviderPort {
  /** The client for a named credential at an origin; null when it is not configured or has no key. */
  account(origin: string, credential: string): Promise<AccountClient | null>;
  /** The page size the list endpoint serves at most (500 at CreateOS), for cost estimates. */
  readonly listPageSize: number;
}

/**
 * The team's audit log, as the engine writes and reads it. The team's store implements it
 * (`store/postgres/shared-store.ts`); `compose/` hands it to the engine.
 */
export interface SharedAuditLog {
  append(records: readonly AuditRecord[]): Promise<void>;
  query(query: AuditQuery, limit?: number | null): Promise<AuditEntry[]>;
  /** The oldest `limit` entries that match after the entry with id `after` (from the first when null). */
  page(query: AuditQuery, options: { after: number | null; limit: number }): Promise<AuditEntry[]>;
}
