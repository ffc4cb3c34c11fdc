import { MessageChannel, type Transferable } from "node:worker_threads";
import {
  emptyLeaseColumns,
  type HistoryPage,
  type HistoryPageRequest,
  type InventoryView,
  isCurrentView,
  type ScanStatus,
} from "../../../shared/contract/index.js";
import { decodeJson } from "../../../shared/contract/json-bytes.js";
import type { ActionSelection, JobEvent } from "../../../shared/domain/actions.js";
import type { Headline } from "../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory, LeasekeeperAction } from "../../../shared/domain/inventory.js";
import type { PassPlan } from "../../../shared/domain/janitor/index.js";
import type { MarkerIndex } from "../../../shared/domain/marker-proof.js";
import type { Company } from "../../../shared/domain/paperclip.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import { CoreError } from "../errors/core-error.js";
import type { EventHub } from "../handlers/events.js";
import { listCredentialPages } from "../inventory/scan.js";
import {
  InventoryWorker,
  InventoryWorkerError,
  InventoryWorkerOverBudget,
} from "../inventory/worker/inventory-worker-client.js";
import {
  fetchOnReaderThread,
  type ListPageRead,
  ListPageReadOnReader,
} from "../inventory/worker/list-page-fetch.js";
import { ListPageReader } from "../inventory/worker/list-page-reader-client.js";
import type { StoredScan } from "../inventory/worker/ports.js";
import type {
  Accepted,
  AttentionRows,
  EncodedView,
  FoundLease,
  InventorySummary,
  KnownPage,
  PolicyPlanInput,
  QuarantineProofInput,
  QuarantineProofNow,
  RowsPage,
  RowsToProve,
  UntrackedAnswer,
  WorkerFailure,
  WorkerRequest,
  WorkerSetup,
} from "../inventory/worker/protocol.js";
import { type HeldView, heldFromWorker, heldView } from "./held-view.js";
import type { Logger } from "./log.js";
import { failedStatus, scannedStatus } from "./scan-status.js";
import { type StoredHeldView, storedHeldView } from "./stored-view-bytes.js";

export interface ScanContext {
  config: LeasekeeperConfig;
  secrets: SecretStore;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/** Every stored row as pages (`InventoryService.rowPages`). */
export interface RowPages {
  /** Everything but the rows. */
  inventory: Inventory;
  /** The rows in scope, counted by headline. */
  counts: Record<Headline, number>;
  pages: AsyncIterable<ClassifiedLease[]>;
}

export interface InventoryServiceOptions {
  context: () => ScanContext;
  /** Where the store is (the worker opens its own connection to it); null keeps nothing on disk. */
  dataDir: string | null;
  events: EventHub;
  log: Logger;
  now?: () => Date;
  /**
   * The view of the stored inventory as the UTF-8 JSON kept, read on main (null when there is none that
   * matches it).
   */
  storedView?: () => Uint8Array | null;
  /**
   * The last view another machine kept in the store a team shares, read when this data directory has
   * none of its own (one query, off the worker's path); the worker keeps the view there after each save.
   */
  sharedView?: () => Promise<InventoryView | null>;
  /** The store a team shares, handed to the worker, which writes the view there. */
  sharedStore?: WorkerSetup["sharedStore"];
  /** Told of each view's bytes the worker redacted for the keys in use now (the answers' redactor trusts them). */
  redacted?: (bytes: Uint8Array) => void;
  /** Replaces the real scan (tests of the service's caching); its inventory is handed to the worker. */
  scan?: (context: ScanContext) => Promise<Inventory>;
}

/** Where a scan's time went: the sources read in the worker while main listed every credential. */
export interface ScanTimings {
  sourcesMs: number;
  listingMs: number;
  /** Each credential's listing, paced (they run together, so these overlap). */
  listings?: { origin: string; credential: string; durationMs: number }[];
  /** Rows the worker judged afresh, and rows whose inputs had not changed since the scan before. */
  rows?: { judged: number; reused: number };
  /**
   * List pages read; pages whose bytes were those of a page of the scan before, and pages whose bytes
   * another listing of this scan gave (neither parsed again).
   */
  pages?: { read: number; reused: number; repeated: number };
}

/** A scan this service finished, made or failed: for the metrics' durations and outcomes. */
export interface FinishedScan {
  outcome: ScanStatus["outcome"];
  durationMs: number;
  /** Where the time went; absent when the scan failed before its listings were judged. */
  sourcesMs?: number;
  listings?: { origin: string; credential: string; durationMs: number }[];
}

const MESSAGE_LIMIT = 240;
const NO_ROW_TABLES = {
  environments: [],
  companies: [],
  companyNames: [],
  origins: [],
  statuses: [],
  policies: [],
  shapes: [],
  actedOn: [],
};

/**
 * The last inventory. The heavy work — reading the sources, judging the rows, saving, encoding the compact
 * view — runs in the inventory worker; main lists CreateOS with its paced client (one queue per origin for
 * the whole process), hands the listings over, and keeps only the summary and the view's bytes. A host
 * shows the stored inventory at once and refreshes in the background. Scans are single-flight (a second
 * request joins the running scan) and every finished scan emits `inventory:changed`.
 */
export class InventoryService {
  readonly #options: InventoryServiceOptions;
  readonly #worker: InventoryWorker;
  readonly #pageReader = new ListPageReader();
  #summary: InventorySummary | null = null;
  #view: HeldView | null = null;
  /** The whole inventory, fetched from the worker only when asked for (`leasekeeper scan`, which prints it). */
  #full: Promise<Inventory> | null = null;
  #attention: Promise<AttentionRows> | null = null;
  #fromStore = false;
  #stored: Promise<void> = Promise.resolve();
  /** Confirmed destroys being applied in the worker, in the order the jobs reported them. */
  #updates: Promise<void> = Promise.resolve();
  #running: Promise<InventorySummary> | null = null;
  #lastRefreshAt: string | null = null;
  #lastScanTimings: ScanTimings | null = null;
  #scanStatus: ScanStatus | null = null;
  readonly #scanListeners = new Set<(scan: FinishedScan) => void>();
  #redactionsVersion = 0;
  #timer: ReturnType<typeof setInterval> | null = null;
  #scanIds = 0;
  /** The worker's generation of the view shown now. */
  #shown = 0;
  #closing = false;

  constructor(options: InventoryServiceOptions) {
    this.#options = options;
    this.#worker = new InventoryWorker(
      { dataDir: options.dataDir, sharedStore: options.sharedStore ?? null },
      (failure) => this.#unasked(failure),
      { onReplaced: (accepted) => this.#replaced(accepted) },
    );
  }

  /** The keys in use now: the worker takes them out of every inventory before it stores one. */
  setRedactions(values: readonly string[]): void {
    this.#redactionsVersion += 1;
    this.#ask({ type: "redactions", values: [...values], version: this.#redactionsVersion }).catch(
      (error: unknown) => {
        this.#options.log.warn("the inventory worker could not be told the keys to redact", error);
      },
    );
  }

  /**
   * Shows the last stored inventory until the first scan of this run finishes: its stored view at once,
   * read on main, while the worker loads the inventory itself (then its own view replaces the stored one).
   */
  loadStored(): Promise<void> {
    // The list-page reader starts now (the worker with the request below), not on the first scan.
    this.#pageReader.start();
    let stored: StoredHeldView | null = null;
    try {
      stored = this.#storedView();
      if (stored !== null) this.#showStoredView(stored);
    } catch (error) {
      this.#options.log.warn("the stored view could not be read; the stored inventory will be shown", error);
    }
    const sharedView = stored === null ? this.#options.sharedView : undefined;
    const shared =
      sharedView === undefined
        ? Promise.resolve()
        : sharedView().then(
            (found) => {
              // Only until this run has a view of its own (a scan or the worker's stored inventory).
              if (found !== null && this.#shown === 0 && this.#view === null)
                this.#showStoredView({ view: heldView(found), leaseCount: found.leases.leaseId.length });
            },
            (error: unknown) => {
              this.#options.log.warn("the shared store's last view could not be read", error);
            },
          );
    // Never rejects: nobody may be waiting for it (a host closed at once ends the worker under it).
    const worker = this.#worker
      .request<Accepted | null>({ type: "load-stored" })
      .then(async (stored) => {
        if (stored === null) return;
        const view = await this.#receive(stored);
        // A scan that finished first is newer; the stored view read on main is not.
        if (view !== null && this.#shown === 0) {
          this.#take(stored, view);
          this.#fromStore = true;
        }
      })
      .catch((error: unknown) => {
        // A host closed before the worker answered ended the worker under it: nothing was unreadable.
        if (this.#closing) return;
        this.#options.log.warn("the stored inventory could not be read; a fresh scan will replace it", error);
      });
    this.#stored = Promise.all([shared, worker]).then(() => undefined);
    return this.#stored;
  }

  /**
   * The stored view held as the bytes kept, its lease columns never parsed on main; one whose text is not
   * laid out as `storedHeldView` reads (or is not JSON) is parsed whole and encoded again, as before.
   */
  #storedView(): StoredHeldView | null {
    const bytes = this.#options.storedView?.() ?? null;
    if (bytes === null) return null;
    const held = storedHeldView(bytes);
    if (held !== null) return held;
    const view = decodeJson<Partial<InventoryView>>(bytes);
    return isCurrentView(view) ? { view: heldView(view), leaseCount: view.leases.leaseId.length } : null;
  }

  #showStoredView({ view, leaseCount }: StoredHeldView): void {
    this.#summary = {
      generatedAt: view.generatedAt,
      origins: view.originHealth,
      // The view's first gaps (it caps them); the worker's summary, once it has loaded, has every one.
      gaps: view.gaps,
      // History is counted in the view, not carried in its rows.
      leaseCount: leaseCount + view.history.count,
    };
    this.#view = view;
    this.#fromStore = true;
  }

  get lastRefreshAt(): string | null {
    return this.#lastRefreshAt;
  }

  /** How the last scan of this run spent its time (the benchmark reports it). */
  get lastScanTimings(): ScanTimings | null {
    return this.#lastScanTimings;
  }

  /** What the last scan of this run read, per source and per credential, and its outcome; null before one. */
  get scanStatus(): ScanStatus | null {
    return this.#scanStatus;
  }

  /** Tells `listener` of every scan finished from now on; returns how to stop. */
  onScan(listener: (scan: FinishedScan) => void): () => void {
    this.#scanListeners.add(listener);
    return () => {
      this.#scanListeners.delete(listener);
    };
  }

  #scanFinished(scan: FinishedScan): void {
    for (const listener of [...this.#scanListeners]) {
      try {
        listener(scan);
      } catch {
        // A listener's failure is its own: the scan is finished whatever it does.
      }
    }
  }

  get refreshing(): boolean {
    return this.#running !== null;
  }

  /** What main knows of the last inventory (its age and each listing's health); null before the first. */
  get summary(): InventorySummary | null {
    return this.#summary;
  }

  /** A scan now, or the one already running. */
  refresh(): Promise<InventorySummary> {
    this.#running ??= this.#scan().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** The inventory's summary, scanning first when there is none from this run yet (a stored one is shown meanwhile). */
  async ensure(): Promise<InventorySummary> {
    await this.#stored;
    await this.#updates;
    if (this.#summary === null) return this.refresh();
    if (this.#fromStore) void this.refresh().catch(() => undefined);
    return this.#summary;
  }

  /**
   * The whole inventory, every stored row copied over from the worker once per inventory. Nothing in the
   * product asks for it (each reader asks the worker for the rows it reads; `rowPages` for every row):
   * tests and the benchmark compare with it, as with a cold scan's result.
   */
  async full(): Promise<Inventory> {
    await this.ensure();
    this.#full ??= this.#worker.request<Inventory>({ type: "inventory" });
    return this.#full;
  }

  /**
   * What the metrics' figures read (`AttentionRows`), copied over from the worker once per inventory:
   * the rows needing an operator and the headline counts, never the history.
   */
  async attentionRows(): Promise<AttentionRows> {
    await this.ensure();
    this.#attention ??= this.#worker
      .request<AttentionRows | null>({ type: "attention-rows" })
      .then((rows) => {
        if (rows === null) throw noInventoryHeld("count");
        return rows;
      });
    const attention = this.#attention;
    // A failed read is not kept: the next scrape asks again.
    attention.catch(() => {
      if (this.#attention === attention) this.#attention = null;
    });
    return attention;
  }

  /**
   * For a plan of `selection`: an inventory scanned no more than `maxAgeMs` ago (scanning when the one
   * held is older or was loaded from a store), with only the rows the plan reads (those the selection
   * picks and the rows they share a sandbox with), read from the worker's store. A plan of one row copies
   * one row, however much history the store holds. With `acceptStored`, one loaded from a store (this
   * machine's, or the team's from another machine) counts by when it was scanned, not by who scanned it;
   * a view shown on its own, with no inventory behind it in the worker yet, never counts.
   */
  async forPlan(
    selection: ActionSelection,
    { maxAgeMs, acceptStored = false }: { maxAgeMs: number; acceptStored?: boolean },
  ): Promise<Inventory> {
    await this.#recentEnough(maxAgeMs, acceptStored);
    // As `full` does: waits for the marks of confirmed jobs, so the plan sees what they did.
    await this.ensure();
    const inventory = await this.#worker.request<Inventory | null>({ type: "inventory-for-plan", selection });
    if (inventory === null) throw noInventoryHeld("plan from");
    return inventory;
  }

  /**
   * Every stored row, a page at a time, for a reader that writes them out as it goes (`leasekeeper
   * scan`): everything but the rows and the rows counted by headline (with `environmentId`, of that
   * environment's rows only) at once, then the rows in the store's order. The pages fail if another
   * process's scan is flipped over the store before the last is read: rows of two inventories are
   * never mixed.
   */
  async rowPages(environmentId?: string, limit = 2_000): Promise<RowPages> {
    await this.ensure();
    const scope = environmentId === undefined ? {} : { environmentId };
    const first = await this.#worker.request<RowsPage | null>({
      type: "rows-page",
      scan: null,
      after: null,
      limit,
      ...scope,
    });
    if (first?.first === undefined) throw noInventoryHeld("read");
    const worker = this.#worker;
    async function* pages(): AsyncGenerator<ClassifiedLease[]> {
      let page: RowsPage | null = first;
      while (page !== null) {
        if (page.rows.length > 0) yield page.rows;
        if (page.next === null) return;
        page = await worker.request<RowsPage | null>({
          type: "rows-page",
          scan: page.scan,
          after: page.next,
          limit,
          ...scope,
        });
      }
      throw new Error(
        "another scan replaced the stored inventory while its rows were being read; run the command again",
      );
    }
    return { ...first.first, pages: pages() };
  }

  /**
   * For proofs: the inventory held (a scan first when there is none), with only the rows with these
   * lease ids and the rows they share a sandbox with, read from the worker's store, and the scan they are of.
   */
  async rowsToProve(leaseIds: readonly string[]): Promise<RowsToProve> {
    await this.ensure();
    const rows = await this.#worker.request<RowsToProve | null>({
      type: "rows-to-prove",
      leaseIds: [...new Set(leaseIds)],
    });
    if (rows === null) throw noInventoryHeld("prove against");
    return rows;
  }

  /**
   * For proofs: every row of `scan` recording each of these markers (`buildMarkerIndex`), read in the
   * worker by the marker's index; null once the store no longer holds `scan`.
   */
  async markerIndex(markers: readonly string[], scan: StoredScan | null): Promise<MarkerIndex | null> {
    await this.ensure();
    const index = await this.#worker.request<MarkerIndex | "replaced" | null>({
      type: "marker-index",
      markers: [...markers],
      scan,
    });
    if (index === null) throw noInventoryHeld("prove against");
    return index === "replaced" ? null : index;
  }

  /**
   * For a quarantine's claims: an inventory scanned no more than `maxAgeMs` ago by this run (as `forPlan`
   * without `acceptStored`), with only the rows that record one of `sandboxIds` (in any origin), read
   * from the worker's store. With none, no row: what is left is the scan-wide part (the untracked
   * sandboxes among it).
   */
  async recording(sandboxIds: readonly string[], { maxAgeMs }: { maxAgeMs: number }): Promise<Inventory> {
    await this.#recentEnough(maxAgeMs, false);
    await this.ensure();
    const inventory = await this.#worker.request<Inventory | null>({
      type: "inventory-recording",
      sandboxIds: [...new Set(sandboxIds)],
    });
    if (inventory === null) throw noInventoryHeld("read");
    return inventory;
  }

  /**
   * A janitor's plan of a policy over the inventory held now (no new scan; a stored one counts), worked
   * out in the worker over the rows its rules match: a pass over a fleet's whole history copies none of
   * it here.
   */
  async policyPlan(input: PolicyPlanInput): Promise<PassPlan> {
    await this.ensure();
    const plan = await this.#worker.request<PassPlan | null>({ type: "policy-plan", input });
    if (plan === null) throw noInventoryHeld("plan from");
    return plan;
  }

  /**
   * A quarantine's kept marker proof read again over the inventory held now (no new scan; a stored one
   * counts), in the worker, from the rows that name its sandbox or record its marker.
   */
  async quarantineProof(input: QuarantineProofInput): Promise<QuarantineProofNow> {
    await this.ensure();
    const answer = await this.#worker.request<QuarantineProofNow | null>({ type: "quarantine-proof", input });
    if (answer === null) throw noInventoryHeld("read the proof against");
    return answer;
  }

  async #recentEnough(maxAgeMs: number, acceptStored: boolean): Promise<void> {
    if (acceptStored) await this.#stored;
    const summary = this.#summary;
    const counts = summary !== null && (!this.#fromStore || (acceptStored && this.#shown > 0));
    const now = this.#now().getTime();
    if (!(counts && now - Date.parse(summary.generatedAt) <= maxAgeMs)) await this.refresh();
  }

  /**
   * The view shown now (with `environmentId`, that environment's, read from the worker), as the bytes
   * hosts answer with and the part of it main reads.
   */
  async view(request: {
    environmentId?: string | undefined;
    refresh?: boolean | undefined;
  }): Promise<HeldView> {
    if (request.refresh) await this.refresh();
    else if (request.environmentId === undefined && this.#view !== null && this.#shown === 0) {
      // The stored view read at start: shown without waiting for the worker to load the inventory.
      void this.refresh().catch(() => undefined);
      await this.#updates;
      return this.#view;
    }
    await this.ensure();
    if (request.environmentId !== undefined) {
      const encoded = await this.#ask<EncodedView | null>({
        type: "view",
        environmentId: request.environmentId,
      });
      if (encoded === null) throw noInventoryHeld("show that environment from");
      return heldFromWorker(encoded);
    }
    return this.#view!;
  }

  /**
   * A page of history (closed rows, which the view leaves out), from the inventory the worker holds;
   * `stale` when the request named the generation of another view than the worker's.
   */
  async history(request: HistoryPageRequest): Promise<HistoryPage> {
    await this.ensure();
    await this.#updates;
    const page = await this.#ask<HistoryPage | null>({ type: "history-page", page: request });
    return (
      page ?? {
        generation: 0,
        generatedAt: this.#summary?.generatedAt ?? this.#now().toISOString(),
        stale: request.generation !== undefined && request.generation !== 0,
        offset: request.offset,
        total: 0,
        providerCounts: [],
        rows: { ...NO_ROW_TABLES, leases: emptyLeaseColumns() },
      }
    );
  }

  /** A lease of the current inventory; with a source id when two sources could share a lease id. */
  async find(
    leaseId: string,
    sourceId?: string,
  ): Promise<{ lease: ClassifiedLease; byId: ReadonlyMap<string, ClassifiedLease>; companies: Company[] }> {
    await this.ensure();
    const found = await this.#ask<FoundLease | null>({ type: "find", leaseId, sourceId: sourceId ?? null });
    if (!found)
      throw new CoreError(
        "call",
        "not-found",
        "No lease with that id in the current inventory; refresh and try again.",
      );
    return {
      lease: found.lease,
      byId: new Map(found.related.map((other) => [other.lease.id, other])),
      companies: found.companies,
    };
  }

  /**
   * The listed sandboxes no row names, and those that cannot be called orphans. A worker that holds no
   * inventory (main shows a stored view whose inventory the worker could not load, or the worker was
   * started again) has not read them: an empty list dated as the view shown would say there are none.
   */
  async untracked(): Promise<UntrackedAnswer> {
    await this.ensure();
    const answer = await this.#ask<UntrackedAnswer | null>({ type: "untracked" });
    if (answer === null)
      throw new CoreError(
        "call",
        "unavailable",
        "The untracked sandboxes of the inventory shown are not held; they are read again with the next refresh.",
      );
    return answer;
  }

  /**
   * A job's progress: when an item confirms a delete or a pause (a destroy, or a release), the rows
   * naming that sandbox say at once what Leasekeeper did, who did it, when and in which job, without
   * waiting for the next scan or for Paperclip to update its row; the change is announced like a scan's.
   */
  noteJobEvent(event: JobEvent): void {
    if (event.type !== "item") return;
    const { item } = event;
    if (item.state !== "confirmed" || item.effect === null) return;
    if (item.origin === null || item.sandboxId === null) return;
    const mark: LeasekeeperAction = {
      action: event.action,
      effect: item.effect,
      jobId: event.jobId,
      at: item.finishedAt ?? this.#now().toISOString(),
      operator: event.operator,
    };
    // Chained, and awaited by every read, so an answer given after the event already shows it.
    this.#updates = this.#updates.then(() => this.#showActedOn(item.origin!, item.sandboxId!, mark));
  }

  async #showActedOn(origin: string, sandboxId: string, mark: LeasekeeperAction): Promise<void> {
    try {
      const updated = await this.#ask<Accepted | null>({
        type: "acted-on",
        origin,
        sandboxId,
        mark,
        now: this.#now().toISOString(),
      });
      if (updated === null) return;
      const view = await this.#receive(updated);
      if (view === null) return;
      this.#take(updated, view);
      if (updated.replaced && this.#shown === updated.generation) this.#fromStore = true;
      this.#options.events.emit("inventory:changed", { generatedAt: updated.summary.generatedAt });
    } catch (error) {
      this.#options.log.warn("a confirmed destroy or release could not be shown", error);
    }
  }

  startAutoRefresh(seconds: number): void {
    this.stopAutoRefresh();
    if (seconds <= 0) return;
    this.#timer = setInterval(() => {
      void this.refresh().catch(() => undefined);
    }, seconds * 1000);
    this.#timer.unref?.();
  }

  stopAutoRefresh(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Resolves once the worker has written what it was saving (tests, the benchmark). */
  saved(): Promise<void> {
    return this.#worker.request({ type: "saved" });
  }

  /** Waits for a running scan and the worker's save, then ends the worker. */
  async close(): Promise<void> {
    this.#closing = true;
    this.stopAutoRefresh();
    await this.#running?.catch(() => undefined);
    await this.#worker.close();
    await this.#pageReader.close();
  }

  #now(): Date {
    return (this.#options.now ?? (() => new Date()))();
  }

  async #scan(): Promise<InventorySummary> {
    const context = this.#options.context();
    const startedAt = performance.now();
    let accepted: Accepted;
    try {
      accepted = this.#options.scan
        ? await this.#ask<Accepted>({ type: "accept", inventory: await this.#options.scan(context) })
        : await this.#scanInWorker(context);
    } catch (error) {
      const known = error instanceof InventoryWorkerError && error.failure.kind !== "internal";
      // The inventory shown stays the last good one; the status says why and since when.
      this.#scanStatus = failedStatus({
        config: context.config,
        at: this.#now().toISOString(),
        error: known ? error.message : "",
        internal: !known,
        ...(error instanceof InventoryWorkerOverBudget ? { sentence: error.message } : {}),
        previous: this.#scanStatus,
        shownFrom: this.#summary?.generatedAt ?? null,
      });
      this.#scanFinished({ outcome: "failed", durationMs: performance.now() - startedAt });
      // Source and config errors are one line naming the source or file; they say what to fix.
      if (error instanceof InventoryWorkerError && error.failure.kind !== "internal") {
        this.#options.log.warn("scan failed", error.message);
        const message =
          error.message.length > MESSAGE_LIMIT ? `${error.message.slice(0, MESSAGE_LIMIT)}…` : error.message;
        throw new CoreError("call", "unavailable", `The scan could not read a lease source: ${message}`);
      }
      throw error;
    }
    const view = await this.#receive(accepted);
    const shownBefore = this.#summary;
    // Null only when two newer inventories were accepted meanwhile; the newest is shown by its own path.
    if (view !== null) this.#take(accepted, view);
    this.#scanStatus = scannedStatus({
      config: context.config,
      at: accepted.summary.generatedAt,
      origins: accepted.summary.origins,
      // Every gap, not the view's first 200: a source whose gaps all come after them was read partly too.
      gaps: accepted.summary.gaps,
      previous: this.#scanStatus,
      previousShown: shownBefore,
    });
    // Single-flight: the timings held now are this scan's (a scan handed in by a test has none).
    const timings = this.#options.scan ? null : this.#lastScanTimings;
    this.#scanFinished({
      outcome: this.#scanStatus.outcome,
      durationMs: performance.now() - startedAt,
      ...(timings ? { sourcesMs: timings.sourcesMs, listings: timings.listings ?? [] } : {}),
    });
    this.#fromStore = false;
    this.#lastRefreshAt = accepted.summary.generatedAt;
    this.#options.events.emit("inventory:changed", { generatedAt: accepted.summary.generatedAt });
    return accepted.summary;
  }

  /**
   * The sources are read in the worker while main lists every credential; each page of a listing goes,
   * as the bytes CreateOS sent, to the list-page reader, which parses it and passes it on to the worker
   * while main asks for the next; then the worker judges.
   */
  async #scanInWorker(context: ScanContext): Promise<Accepted> {
    const scanId = ++this.#scanIds;
    try {
      return await this.#listInWorker(scanId, context);
    } catch (error) {
      // Not judged (or judged and failed): the worker lets go of what it read and was sent for it.
      this.#ask({ type: "forget-scan", scanId }).catch(() => undefined);
      throw error;
    }
  }

  async #listInWorker(scanId: number, context: ScanContext): Promise<Accepted> {
    const { config, secrets } = context;
    const handedOver: Promise<unknown>[] = [];
    // Awaited together once every listing is in; until then a failure must not count as unhandled.
    const handOver = (request: WorkerRequest, transfer?: readonly Transferable[]) => {
      const answered = this.#worker.request(request, transfer);
      answered.catch(() => undefined);
      handedOver.push(answered);
    };
    handOver({ type: "read-sources", scanId, config, env: sourceEnv(context) });
    // Pages go from the list-page reader to the worker on a channel of this scan's own.
    const pages = new MessageChannel();
    const known = this.#worker.request<KnownPage[]>(
      { type: "listing-pages-from", scanId, port: pages.port1 },
      [pages.port1],
    );
    known.catch(() => undefined);
    handedOver.push(known);
    // The pages the worker read in the last scan it judged: the reader does not parse them again. A
    // worker that cannot answer has failed this scan (ended at its heap budget while reading, say): its
    // error is the scan's, and the channel's other end, closed with it, is not handed to the reader.
    await this.#pageReader.request({ type: "scan", scanId, port: pages.port2, known: await known });
    const listingStartedAt = performance.now();
    const listings = await Promise.all(
      config.credentials.map(async (credential, at) => {
        // The pages are requested on the reader's thread, paced by main's transport, and each is read
        // there as it arrives (list-page-fetch.ts); a page a host's own `fetch` got is handed to the
        // reader as its bytes, unread. Main neither parses nor keeps one.
        const listFetch =
          context.fetch ??
          fetchOnReaderThread((request) => this.#pageReader.request(request), { scanId, listing: at });
        let handed = 0;
        const startedAt = performance.now();
        const entry = await listCredentialPages(
          config,
          secrets,
          credential,
          (client, call) =>
            client.forEachSandboxPageResponse(async (response) => {
              const page =
                response instanceof ListPageReadOnReader
                  ? await this.#takePage(response)
                  : await this.#pageReader.read(scanId, at, await response.arrayBuffer());
              if (page !== null) handed += 1;
              return page;
            }, call),
          { client: { fetch: listFetch } },
        );
        handOver({ type: "listing-done", scanId, listing: at, result: entry.listing, pages: handed });
        const timing = {
          origin: credential.origin,
          credential: credential.name,
          durationMs: performance.now() - startedAt,
        };
        return { requests: entry.requests, timing };
      }),
    ).finally(() => {
      this.#pageReader.request({ type: "scan-done", scanId }).catch(() => undefined);
    });
    const listingMs = performance.now() - listingStartedAt;
    await Promise.all(handedOver);
    const judged = await this.#judged(scanId, listings, listingMs);
    if (this.#lastScanTimings) this.#lastScanTimings.listings = listings.map((entry) => entry.timing);
    return judged;
  }

  /** The worker's judgement of a scan whose listings have all been handed over. */
  /**
   * A list page the reader read where it arrived, joined to its listing now that the SDK has it: the
   * reader has sent it on to the worker once this answers, before main can say the listing ended.
   */
  async #takePage(response: ListPageReadOnReader): Promise<ListPageRead | null> {
    await this.#pageReader.request({ type: "take-page", fetchId: response.fetchId });
    return response.page;
  }

  async #judged(scanId: number, listings: { requests: number }[], listingMs: number): Promise<Accepted> {
    const judged = await this.#ask<Accepted>({
      type: "judge",
      scanId,
      listings: listings.length,
      requests: listings.reduce((sum, entry) => sum + entry.requests, 0),
      now: this.#now().toISOString(),
    });
    this.#lastScanTimings = {
      sourcesMs: judged.sourcesMs ?? 0,
      listingMs,
      ...(judged.rows === undefined ? {} : { rows: judged.rows }),
      ...(judged.pages === undefined ? {} : { pages: judged.pages }),
    };
    return judged;
  }

  #ask<T>(request: Parameters<InventoryWorker["request"]>[0]): Promise<T> {
    return this.#worker.request<T>(request);
  }

  /**
   * The accepted view as the worker encoded it, its bytes moved to main in one message: taking them
   * costs main no parse, and holding them one buffer, not a string per id for its collections to copy.
   * Its generation names the inventory the view shows, so history pages of another are told apart.
   */
  async #receive(accepted: Accepted): Promise<HeldView | null> {
    const encoded = await this.#ask<EncodedView | null>({
      type: "view-bytes",
      generation: accepted.generation,
    });
    return encoded === null ? null : heldFromWorker(encoded);
  }

  #take({ generation, summary, redactedFor }: Accepted, view: HeldView): void {
    // Parts of two views may arrive interleaved; the worker's newer inventory wins whichever lands last.
    if (generation <= this.#shown) return;
    this.#shown = generation;
    this.#summary = summary;
    this.#view = view;
    this.#full = null;
    this.#attention = null;
    // Redacted in the worker for the keys in use now: answers need not walk its rows again on main.
    if (redactedFor === this.#redactionsVersion) this.#options.redacted?.(view.bytes);
  }

  /**
   * The worker found that another process saved over the store and holds that inventory now: it is
   * shown, announced like a scan's, and counted as one read from a store (not scanned by this run).
   * Chained with the marks of jobs, so an answer given after it shows it.
   */
  #replaced(accepted: Accepted): void {
    this.#updates = this.#updates.then(async () => {
      try {
        const view = await this.#receive(accepted);
        if (view === null || accepted.generation <= this.#shown) return;
        this.#take(accepted, view);
        this.#fromStore = true;
        this.#options.events.emit("inventory:changed", { generatedAt: accepted.summary.generatedAt });
      } catch (error) {
        this.#options.log.warn("the inventory another process saved could not be shown", error);
      }
    });
  }

  #unasked(failure: WorkerFailure): void {
    if (failure.during === "load")
      this.#options.log.warn(
        "the team's inventory could not be loaded; this machine's own is used",
        failure.message,
      );
    else if (failure.during === "restart")
      this.#options.log.warn("the inventory worker was ended at its heap budget", failure.message);
    else if (failure.during === "keep-memory")
      this.#options.log.warn(
        "this scan's memory was not kept beside its rows; a process started again reads every source whole",
        failure.message,
      );
    else this.#options.log.warn("the inventory could not be saved; it is still shown", failure.message);
  }
}

/** The variables the sources name (Paperclip tokens, database URLs they read), and nothing else of the environment. */
function sourceEnv({ config, env }: ScanContext): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const source of config.sources) {
    const name =
      source.kind === "paperclip" ? source.tokenEnv : source.kind === "paperclip-db" ? source.urlEnv : null;
    const value = name === null ? undefined : env[name];
    if (name !== null && value !== undefined) picked[name] = value;
  }
  return picked;
}

/**
 * The worker holds no inventory to answer from: main shows a stored view whose inventory the worker could
 * not load, or the worker was started again. A sentence for the operator, as every failure of a call is.
 */
function noInventoryHeld(purpose: string): CoreError<"call"> {
  return new CoreError("call", "unavailable", `No inventory is held to ${purpose}; refresh and try again.`);
}
