import { hash } from "node:crypto";
import {
  emptyLeaseColumns,
  encodeInventory,
  type HistoryPage,
  type HistoryPageRequest,
  type InventoryView,
  LEASE_COLUMNS,
  type LeaseColumns,
} from "../../../../shared/contract/index.js";
import type {
  ClassifiedLease,
  Inventory,
  ProviderSandbox,
  SandboxListing,
  SourceSnapshot,
} from "../../../../shared/domain/inventory.js";
import { reconcile } from "../../../../shared/domain/reconcile.js";
import { VerdictMemo } from "../../../../shared/domain/verdict-memo.js";
import { readSandboxViews } from "../../createos/views.js";
import { isCoreError } from "../../errors/core-error.js";
import { SourceError } from "../../leases/index.js";
import { LeasekeeperActions } from "../leasekeeper-actions.js";
import { historyPage, type Shelf } from "./history-pages.js";
import type {
  Accepted,
  FoundLease,
  KnownPage,
  ScanSetup,
  UntrackedAnswer,
  WorkerFailure,
  WorkerRequest,
} from "./protocol.js";
import { ShelvedHistory } from "./shelved-history.js";
import { ShelvedLiveRows } from "./shelved-live-rows.js";
import { SourceReads } from "./source-reads.js";

/** Views kept for main to fetch: the newest, and the one before it that main may be fetching still. */
const KEPT_VIEWS = 2;

interface PendingScan {
  snapshots: Promise<SourceSnapshot[]>;
  /** How long reading every source took, once it has. */
  sourcesMs: Promise<number>;
  /** Every listing that has ended with all its pages in, by its index. */
  listings: SandboxListing[];
  /** What each listing still under way has read so far, and how it ended once main says so. */
  reading: Map<number, ListingUnderWay>;
  /** Set by `judge`: how many listings it waits for, and what to call once they are all in. */
  awaited: { count: number; allIn: () => void } | null;
  /** The pages of the last scan judged when this one began listing: the reader skips parsing those. */
  known: ReadonlyMap<string, ListedPage>;
  /** Every page this scan listed, by digest, for the next scan to know. */
  listed: Map<string, ListedPage>;
  pages: { read: number; reused: number };
  /** A page named as known that this worker does not hold (it cannot happen by the protocol). */
  unknownPage: string | null;
}

/** The sandboxes one list page held, as read from its views (before a scan drops ids it has seen). */
interface ListedPage {
  page: KnownPage;
  sandboxes: ProviderSandbox[];
}

interface ListingUnderWay {
  sandboxes: ProviderSandbox[];
  /** A row repeated across pages (the list shifted between two requests) is read once. */
  seen: Set<string>;
  pages: number;
  ended: { result: SandboxListing; pages: number } | null;
}

/**
 * The inventory as the worker holds it: every source read, joined with main's listings and judged, the
 * compact view encoded once, the store kept up to date in the background. One instance per worker; it is
 * plain code over its requests, so it runs the same under a test without a thread.
 */
/**
 * Where the worker keeps the last inventory on this machine (the data directory's SQLite file, on the
 * worker's own connection): what the keeper needs of it, declared here and implemented by
 * `store/inventory-store.ts`; the thread's entry (`inventory-worker.ts`) joins the two.
 */
export interface KeptInventory {
  /** Saves on a later turn; a newer inventory replaces one still waiting (`superseded`). */
  saveInBackground(inventory: Inventory): Promise<{ superseded: boolean; stored: SavedAs }>;
  /** The rows of the save `saved` read back, while it is still the one stored (else null, or false). */
  readonly rowsOf: {
    holds(saved: SavedAs): boolean;
    byKeys(saved: SavedAs, keys: readonly RowKey[]): (ClassifiedLease | undefined)[] | null;
    forEach(saved: SavedAs, each: (classified: ClassifiedLease) => void): boolean;
  };
  /** Resolves when no background save is running or waiting. */
  idle(): Promise<void>;
  /** The last inventory saved, and the save its rows can be read back from by key (null: none). */
  loadLast(): { inventory: Inventory; stored?: SavedAs | null } | null;
  lastScan(): { generatedAt: string; sourceIds: string[] } | null;
}

/** A save as the store names it: its generation, and the sources it wrote. */
export interface SavedAs {
  generation: number;
  sourceIds: readonly string[];
}

export interface RowKey {
  sourceId: string;
  leaseId: string;
}

/** Where the worker keeps the last view for the next start to show at once (`store/view-store.ts`). */
export interface KeptViews {
  save(view: InventoryView): void;
}

/**
 * The store a team shares, where the worker also keeps the last view and the whole inventory for other
 * machines to start from, and reads the team's inventory at start when it is newer than its own.
 */
export interface SharedViews {
  save(sourceIds: readonly string[], view: InventoryView): Promise<void>;
  /** Keeps the whole inventory, its keys already taken out, for these sources. */
  saveInventory(sourceIds: readonly string[], inventory: Inventory): Promise<void>;
  /** The sources configured when the worker started: the team's inventory read at start is theirs. */
  readonly configuredSources: readonly string[];
  /** The team's inventory for these sources when it was scanned after `than` (null: any), else null. */
  loadNewer(sourceIds: readonly string[], than: string | null): Promise<Inventory | null>;
}

export class InventoryKeeper {
  readonly #store: KeptInventory | null;
  readonly #redactor: KeyRedactor;
  /** Which set of keys main last told: views carry it, so main knows what they were redacted for. */
  #redactionsVersion = 0;
  readonly #viewStore: KeptViews | null;
  /** An inventory to store once main has its view (the save would otherwise hold up the view's parts). */
  #pendingSave: { inventory: Inventory; view: InventoryView } | null = null;
  readonly #onSaveFailed: (failure: WorkerFailure) => void;
  readonly #onReplaced: (accepted: Accepted) => void;
  readonly #sharedViews: SharedViews | null;
  /** The configured sources of the last scan read: the shared view is kept under their set. */
  #sourceIds: string[] | null = null;
  /** The shared view's write under way, which `saved` and `close` wait for. */
  #sharedSave: Promise<void> = Promise.resolve();
  readonly #actedOn = new LeasekeeperActions();
  /** What each row of the last scan was judged from: a rescan judges again only what changed. */
  readonly #verdicts = new VerdictMemo(fingerprint);
  /** Each source's last read: a rescan reads only the rows changed since, where the source can tell. */
  readonly #sourceReads = new SourceReads();
  readonly #scans = new Map<number, PendingScan>();
  /** The list pages of the last scan judged, by the digest of their bytes (see `listing-page`). */
  #listedPages: ReadonlyMap<string, ListedPage> = new Map();
  #inventory: Inventory | null = null;
  /** The inventory the held one was made from (before marks) and given to the store to save. */
  #heldFrom: Inventory | null = null;
  /**
   * Once the held inventory is saved: its history and its live rows, let go of and read back from the
   * store by key (decisions 216, 221), and the save that holds them. Null while every row is held.
   */
  #shelf: (Shelf & { saved: SavedAs }) | null = null;
  #byId = new Map<string, ClassifiedLease>();
  /** Views whose lease columns main may still be fetching, by generation; the newest few are kept. */
  readonly #views = new Map<number, InventoryView>();
  // Starts from the clock, so a worker started again after one stopped still counts up from main's view.
  #generation = Date.now() * 1000;
  #closed = false;

  /**
   * `store` writes the inventory cache (the worker's own connection, taking the configured keys out with
   * the same `redactor` first); the views main receives are redacted here too, once per inventory.
   * `onReplaced` is told when a read finds that another process saved over the store, and the keeper
   * holds the store's inventory instead of its own.
   */
  constructor(
    store: KeptInventory | null,
    redactor: KeyRedactor,
    onSaveFailed: (failure: WorkerFailure) => void,
    viewStore: KeptViews | null = null,
    sharedViews: SharedViews | null = null,
    onReplaced: (accepted: Accepted) => void = () => undefined,
  ) {
    this.#onReplaced = onReplaced;
    this.#sharedViews = sharedViews;
    this.#store = store;
    this.#viewStore = viewStore;
    this.#redactor = redactor;
    this.#onSaveFailed = onSaveFailed;
  }

  async handle(request: WorkerRequest): Promise<unknown> {
    // Anything but the next part of a view lets a waiting save begin.
    if (request.type !== "view-part") this.#startSave();
    switch (request.type) {
      case "redactions":
        this.#redactor.set(request.values);
        this.#redactionsVersion = request.version;
        return null;
      case "load-stored":
        return this.#loadStored();
      case "read-sources":
        this.#sourceIds = request.config.sources.map((source) => source.id);
        this.#readSources(request);
        return null;
      case "listing-page":
        this.#addListingPage(request.scanId, request.listing, request.page, request.views);
        return null;
      case "listing-done":
        this.#endListing(request.scanId, request.listing, request.result, request.pages);
        return null;
      case "listing-pages-from": {
        // The thread's entry feeds what arrives on the port to `handle`. The answer is the pages this
        // scan need not have parsed: those of the last scan judged, as they stand now.
        const scan = this.#scans.get(request.scanId);
        if (scan === undefined) return [];
        scan.known = this.#listedPages;
        return [...scan.known.values()].map(({ page }) => page);
      }
      case "judge":
        return this.#judge(request.scanId, request.listings, request.requests, new Date(request.now));
      case "forget-scan":
        this.#scans.delete(request.scanId);
        return null;
      case "accept":
        return this.#accept(request.inventory, new Date(), { save: true });
      case "acted-on": {
        if (!this.#actedOn.note(request.origin, request.sandboxId, request.mark)) return null;
        // A mark can reach any live row, and the view is encoded again from them: held again first.
        // Held instead, the inventory another process saved already carries the mark.
        const replaced = this.#holdLiveRowsAgain();
        const current = this.#inventory;
        if (current === null) return replaced;
        const updated = this.#actedOn.apply(
          current,
          new Date(request.now),
          this.#shelf?.history.elsewhere.closed,
        );
        if (updated === current) return replaced;
        const accepted = this.#accept(updated, new Date(request.now), { save: false, sameRows: true });
        return replaced === null ? accepted : { ...accepted, replaced: true };
      }
      case "view":
        return this.#environmentView(request.environmentId);
      case "view-part":
        return this.#viewPart(request.generation, request.from, request.to);
      case "history-page":
        return this.#historyPage(request.page);
      case "find":
        return this.#find(request.leaseId, request.sourceId);
      case "untracked":
        return this.#untracked();
      case "inventory":
        return this.#whole();
      case "saved":
        await this.#store?.idle();
        await this.#sharedSave;
        return null;
      case "close":
        this.#closed = true;
        await this.#store?.idle();
        await this.#sharedSave;
        return null;
    }
  }

  async #loadStored(): Promise<Accepted | null> {
    const held = this.#inventory;
    const team = await this.#teamInventory();
    // A scan accepted while the team's store was read is newer than anything stored.
    if (this.#inventory !== held) return null;
    if (team !== null) return this.#accept(team, new Date(), { save: false });
    const stored = this.#store?.loadLast();
    return stored ? this.#acceptStored(stored, { shelve: true }) : null;
  }

  /**
   * The inventory the team's store keeps for the configured sources, when it was scanned later than the
   * one this data directory keeps for the same sources (or this one keeps none for them). Scans are
   * compared by `generatedAt`; on a tie this machine's own is loaded, which costs no transfer. A store
   * that cannot be read is reported and this machine's own is loaded instead.
   */
  async #teamInventory(): Promise<Inventory | null> {
    const shared = this.#sharedViews;
    if (shared === null) return null;
    const local = this.#store?.lastScan() ?? null;
    const sameSources = local !== null && sameSourceSet(local.sourceIds, shared.configuredSources);
    try {
      return await shared.loadNewer(shared.configuredSources, sameSources ? local.generatedAt : null);
    } catch (error) {
      this.#onSaveFailed({ kind: "internal", message: messageOf(error), during: "load" });
      return null;
    }
  }

  #readSources({ scanId, config, env }: ScanSetup): void {
    const startedAt = performance.now();
    let snapshots: Promise<SourceSnapshot[]>;
    try {
      snapshots = this.#sourceReads.load(config, env);
    } catch (error) {
      snapshots = Promise.reject(error);
    }
    const sourcesMs = snapshots.then(() => performance.now() - startedAt);
    // Judged later; until then a failure must not count as unhandled.
    sourcesMs.catch(() => undefined);
    this.#scans.set(scanId, {
      snapshots,
      sourcesMs,
      listings: [],
      reading: new Map(),
      awaited: null,
      known: new Map(),
      listed: new Map(),
      pages: { read: 0, reused: 0 },
      unknownPage: null,
    });
  }

  #underWay(scan: PendingScan, index: number): ListingUnderWay {
    let reading = scan.reading.get(index);
    if (reading === undefined) {
      reading = { sandboxes: [], seen: new Set(), pages: 0, ended: null };
      scan.reading.set(index, reading);
    }
    return reading;
  }

  #addListingPage(scanId: number, index: number, page: KnownPage, views: readonly unknown[] | null): void {
    const scan = this.#scans.get(scanId);
    if (scan === undefined) return;
    const reading = this.#underWay(scan, index);
    let listed: ListedPage | undefined;
    if (views !== null) {
      listed = { page, sandboxes: readSandboxViews(views).sandboxes };
      scan.pages.read += 1;
    } else {
      listed = scan.known.get(page.digest);
      scan.pages.reused += 1;
      scan.unknownPage ??= listed === undefined ? page.digest : null;
    }
    if (listed !== undefined) {
      scan.listed.set(page.digest, listed);
      for (const sandbox of listed.sandboxes) {
        if (reading.seen.has(sandbox.id)) continue;
        reading.seen.add(sandbox.id);
        reading.sandboxes.push(sandbox);
      }
    }
    reading.pages += 1;
    this.#settle(scan, index);
  }

  #endListing(scanId: number, index: number, result: SandboxListing, pages: number): void {
    const scan = this.#scans.get(scanId);
    if (scan === undefined) return;
    this.#underWay(scan, index).ended = { result, pages };
    this.#settle(scan, index);
  }

  /** A listing that has ended and has all its pages in becomes one of the scan's listings. */
  #settle(scan: PendingScan, index: number): void {
    const reading = scan.reading.get(index);
    if (reading?.ended == null || reading.pages < reading.ended.pages) return;
    scan.reading.delete(index);
    const { result } = reading.ended;
    // A listing that failed part-way keeps its failure: the pages it had are not all its sandboxes.
    scan.listings[index] = result.outcome.ok
      ? { ...result, outcome: { ...result.outcome, sandboxes: reading.sandboxes } }
      : result;
    this.#checkAllIn(scan);
  }

  #checkAllIn(scan: PendingScan): void {
    const awaited = scan.awaited;
    if (awaited === null) return;
    for (let index = 0; index < awaited.count; index++) if (scan.listings[index] === undefined) return;
    awaited.allIn();
  }

  async #judge(scanId: number, count: number, requests: number, now: Date): Promise<Accepted> {
    const scan = this.#scans.get(scanId);
    if (scan === undefined) throw new Error("no scan with that id was started");
    // Every listing main said had ended, with all its pages: some may still be on their way.
    await new Promise<void>((allIn) => {
      scan.awaited = { count, allIn };
      this.#checkAllIn(scan);
    });
    this.#scans.delete(scanId);
    if (scan.unknownPage !== null)
      throw new Error(
        "a list page was named as one the worker held from the last scan, and it holds none such",
      );
    const snapshots = await scan.snapshots;
    const listings = scan.listings.slice(0, count);
    // No request is answered between here and the new inventory's acceptance (no turn passes), so the
    // one held is let go first: it can be collected while the next is judged and encoded. Without a
    // store to read it back from, it is kept for a judge that fails. (Not through a WeakRef: a WeakRef
    // made in this job keeps its target alive to the job's end, which is after the judgement.)
    const held = this.#inventory !== null;
    const kept = this.#store === null ? this.#inventory : null;
    this.#hold(null);
    let accepted: Accepted;
    try {
      accepted = this.#accept(reconcile({ snapshots, listings, now, requests, memo: this.#verdicts }), now, {
        save: true,
      });
    } catch (error) {
      await this.#holdAgain(kept, held);
      throw error;
    }
    const rows = { judged: this.#verdicts.judged, reused: this.#verdicts.reused };
    // A page is the same as the last scan's only if this scan judged well: the next scan knows its pages.
    this.#listedPages = scan.listed;
    return { ...accepted, sourcesMs: await scan.sourcesMs, rows, pages: scan.pages };
  }

  #hold(inventory: Inventory | null): void {
    const byId = new Map<string, ClassifiedLease>();
    for (const classified of inventory?.leases ?? []) {
      byId.set(leaseKey(classified.sourceId, classified.lease.id), classified);
      if (!byId.has(classified.lease.id)) byId.set(classified.lease.id, classified);
    }
    this.#inventory = inventory;
    this.#byId = byId;
    this.#shelf = null;
  }

  /**
   * After a judge that failed: the inventory kept before it (without a store), else the same one as it
   * waits to be saved or as the store saved it.
   */
  async #holdAgain(inventory: Inventory | null, held: boolean): Promise<void> {
    const unsaved = this.#pendingSave?.inventory;
    if (inventory !== null || !held || this.#store === null || unsaved !== undefined) {
      this.#hold(inventory ?? (unsaved === undefined ? null : this.#actedOn.apply(unsaved, new Date())));
      return;
    }
    await this.#store.idle();
    const stored = this.#store.loadLast();
    if (this.#inventory === null && stored) this.#hold(this.#actedOn.apply(stored.inventory, new Date()));
  }

  /**
   * Holds an inventory and encodes its view. `sameRows`: the held inventory with marks applied, whose
   * shelved history (if any) stays where it is; anything else is a new inventory, held whole.
   */
  #accept(
    received: Inventory,
    now: Date,
    { save, sameRows = false }: { save: boolean; sameRows?: boolean },
  ): Accepted {
    const shelf = sameRows ? this.#shelf : null;
    const inventory = this.#actedOn.apply(received, now, shelf?.history.elsewhere.closed);
    this.#hold(inventory);
    this.#shelf = shelf;
    if (!sameRows) this.#heldFrom = save ? received : null;
    // Kept for the next start once main has the view; a newer scan replaces one still waiting.
    const view = this.#redactor.redactDeep(
      encodeInventory(inventory, { leaveOutHistory: true, historyElsewhere: shelf?.history.elsewhere }),
    );
    if (save && !this.#closed && this.#store !== null) this.#pendingSave = { inventory: received, view };
    if (view.leases.leaseId.length === 0) this.#startSave();
    const generation = ++this.#generation;
    this.#views.set(generation, view);
    this.#views.delete(generation - KEPT_VIEWS);
    return {
      generation,
      summary: {
        generatedAt: inventory.generatedAt,
        origins: inventory.origins,
        leaseCount: inventory.leases.length,
      },
      view: { ...view, leases: emptyLeaseColumns() },
      redactedFor: this.#redactionsVersion,
    };
  }

  #startSave(): void {
    const pending = this.#pendingSave;
    if (pending === null || this.#store === null) return;
    this.#pendingSave = null;
    const saving = this.#store.saveInBackground(pending.inventory);
    // Set at once, so a `saved` or `close` asked from now on also waits for the shared store's write.
    this.#sharedSave = Promise.all([saving, this.#sharedSave])
      .then(async ([saved]) => {
        // The view goes with the inventory it shows, for the next start to show at once.
        if (saved.superseded) return;
        this.#shelve(pending.inventory, saved.stored);
        this.#viewStore?.save(pending.view);
        await this.#saveShared(pending.inventory, pending.view);
      })
      .catch((error: unknown) => {
        this.#onSaveFailed({ kind: "internal", message: messageOf(error) });
      });
  }

  async #saveShared(inventory: Inventory, view: InventoryView): Promise<void> {
    const shared = this.#sharedViews;
    if (shared === null) return;
    const sourceIds = this.#sourceIds ?? [
      ...inventory.environments.map((environment) => environment.sourceId),
      ...inventory.leases.map((lease) => lease.sourceId),
    ];
    await shared.save(sourceIds, view);
    // The same keys taken out as in the local save (the redactor remembers that copy: no second walk).
    await shared.saveInventory(sourceIds, this.#redactor.redactDeep(inventory));
  }

  #viewPart(generation: number, from: number, to: number): LeaseColumns | null {
    const view = this.#views.get(generation);
    if (view === undefined) return null;
    const part = emptyLeaseColumns() as Record<(typeof LEASE_COLUMNS)[number], unknown[]>;
    for (const name of LEASE_COLUMNS) part[name] = view.leases[name].slice(from, to);
    // The last part of the newest view: main has it all, the save may begin (after this answer).
    if (to >= view.leases.leaseId.length && generation === this.#generation) this.#startSave();
    return part as LeaseColumns;
  }

  /**
   * Lets go of the held inventory's rows once the store holds `saved` (its save of `from`): they are
   * read back from there by key, history page by page (decisions 216, 221). Only while the held
   * inventory is still the one made from `from`; rows a job's mark changed since stay held.
   */
  #shelve(from: Inventory, saved: SavedAs): void {
    const current = this.#inventory;
    if (current === null || this.#heldFrom !== from || this.#shelf !== null || this.#store === null) return;
    const split = ShelvedHistory.split(current, from, (classified) => this.#keptAsIs(classified));
    if (split === null || split.history.size + split.live.size === 0) return;
    this.#hold(split.held);
    this.#shelf = { history: split.history, live: split.live, heldRanks: split.heldRanks, saved };
    // The inventory as it was saved is not needed again, and it holds every shelved row.
    this.#heldFrom = null;
  }

  /**
   * Whether the store keeps this row as the heap has it: true unless a configured key was taken out of
   * it. A row with a key in it stays held, so that a plan, a proof or a repair sees the row as its
   * source gave it (a plan's fingerprint of a redacted row would never match the row read again).
   * Checked part by part: rows share their environment, verdict and many observations, and a row read
   * again by the database source is the same object, so the redactor's memory of each answers at once.
   */
  #keptAsIs(classified: ClassifiedLease): boolean {
    const redactor = this.#redactor;
    const { lease, environment, provider, verdict } = classified;
    return (
      redactor.redactDeep(classified.sourceId) === classified.sourceId &&
      redactor.redactDeep(lease) === lease &&
      redactor.redactDeep(environment) === environment &&
      redactor.redactDeep(provider) === provider &&
      redactor.redactDeep(verdict) === verdict &&
      redactor.redactDeep(classified.sharedWith) === classified.sharedWith &&
      redactor.redactDeep(classified.installedPlugin) === classified.installedPlugin
    );
  }

  /**
   * After another writer saved over the store this keeper's history is shelved in (the CLI's scan on
   * the same data directory): the inventory the store holds now is held instead, a new generation.
   */
  #holdStoredInstead({
    shelve = true,
    tell = true,
  }: {
    shelve?: boolean;
    tell?: boolean;
  } = {}): Accepted | null {
    const stored = this.#store?.loadLast() ?? null;
    if (stored === null) {
      this.#hold(null);
      return null;
    }
    const accepted: Accepted = { ...this.#acceptStored(stored, { shelve }), replaced: true };
    if (tell) this.#onReplaced(accepted);
    return accepted;
  }

  /**
   * Holds an inventory read from this machine's store and encodes its view; with `shelve`, lets go of
   * its rows at once, as after a save (the store holds the very rows just read).
   */
  #acceptStored(
    stored: { inventory: Inventory; stored?: SavedAs | null },
    { shelve }: { shelve: boolean },
  ): Accepted {
    const accepted = this.#accept(stored.inventory, new Date(), { save: false });
    if (shelve && stored.stored != null) {
      this.#heldFrom = stored.inventory;
      this.#shelve(stored.inventory, stored.stored);
    }
    return accepted;
  }

  /** Rows read back from the shelf, with the marks of Leasekeeper's jobs applied as to the rows held. */
  #marked(rows: ClassifiedLease[]): ClassifiedLease[] {
    if (this.#actedOn.size === 0 || this.#inventory === null) return rows;
    return this.#actedOn.apply({ ...this.#inventory, leases: rows }, new Date()).leases;
  }

  /**
   * One environment's view: its rows held and its live rows read back from the store, in inventory
   * order, encoded as the whole view encodes them.
   */
  #environmentView(environmentId: string): InventoryView | null {
    for (let attempt = 0; attempt < 2; attempt++) {
      const inventory = this.#inventory;
      if (inventory === null) return null;
      const leases = this.#rowsListedUnder(environmentId);
      if (leases === null) {
        this.#holdStoredInstead();
        continue;
      }
      return this.#redactor.redactDeep(
        encodeInventory(
          { ...inventory, leases },
          { environmentId, leaveOutHistory: true, historyElsewhere: this.#shelf?.history.elsewhere },
        ),
      );
    }
    return null;
  }

  /**
   * The rows held and the live rows shelved that are listed under `environmentId`, in inventory order
   * (held rows of other environments come along: the encoder leaves them out); null when the store no
   * longer holds the save they were shelved from.
   */
  #rowsListedUnder(environmentId: string): ClassifiedLease[] | null {
    const held = this.#inventory?.leases ?? [];
    const shelf = this.#shelf;
    if (shelf === null || shelf.live.size === 0 || this.#store === null) return held;
    const { keys, ranks } = shelf.live.listedUnder(environmentId);
    const read = keys.length === 0 ? [] : this.#store.rowsOf.byKeys(shelf.saved, keys);
    if (read === null || read.includes(undefined)) return null;
    return mergeByRank(held, shelf.heldRanks, this.#marked(read as ClassifiedLease[]), ranks).leases;
  }

  /**
   * Reads the live rows shelved back into the heap and holds them with the rest, as before they were
   * shelved; the history stays shelved. When the store no longer holds their save, its inventory is
   * held instead.
   */
  #holdLiveRowsAgain(): Accepted | null {
    const inventory = this.#inventory;
    const shelf = this.#shelf;
    if (inventory === null || shelf === null || shelf.live.size === 0 || this.#store === null) return null;
    const read = this.#store.rowsOf.byKeys(shelf.saved, shelf.live.keys());
    // Another writer saved over the store: its inventory is held instead, every row of it. The caller
    // answers with it (a notice sent beside the answer could reach main after the answer is shown).
    if (read === null || read.includes(undefined))
      return this.#holdStoredInstead({ shelve: false, tell: false });
    const merged = mergeByRank(
      inventory.leases,
      shelf.heldRanks,
      read as ClassifiedLease[],
      shelf.live.ranks,
    );
    this.#hold({ ...inventory, leases: merged.leases });
    this.#shelf = { ...shelf, live: ShelvedLiveRows.NONE, heldRanks: Int32Array.from(merged.ranks) };
    return null;
  }

  #historyPage(request: HistoryPageRequest): HistoryPage | null {
    for (let attempt = 0; attempt < 2; attempt++) {
      const inventory = this.#inventory;
      if (inventory === null) return null;
      const shelf = this.#shelf;
      const page = historyPage(inventory, this.#generation, request, shelf, (keys) => {
        if (shelf === null || this.#store === null) return null;
        const rows = this.#store.rowsOf.byKeys(shelf.saved, keys);
        // A row missing from the save that holds it is an error historyPage reports.
        if (rows === null || rows.includes(undefined)) return rows;
        return this.#marked(rows as ClassifiedLease[]);
      });
      if (page !== null) return this.#redactor.redactDeep(page);
      this.#holdStoredInstead();
    }
    return null;
  }

  /** The whole inventory held, its shelved history read back from the store, in the inventory's order. */
  #whole(): Inventory | null {
    for (let attempt = 0; attempt < 2; attempt++) {
      const inventory = this.#inventory;
      const shelf = this.#shelf;
      if (inventory === null || shelf === null || this.#store === null) return inventory;
      const { history, live, heldRanks, saved } = shelf;
      const leases = new Array<ClassifiedLease>(heldRanks.length + history.size + live.size);
      inventory.leases.forEach((classified, at) => {
        leases[heldRanks[at]!] = classified;
      });
      const rankOf = new Map<string, number>();
      for (const shelved of [history, live])
        for (let at = 0; at < shelved.size; at++)
          rankOf.set(leaseKey(shelved.sourceIds[at], shelved.leaseIds[at]!), shelved.ranks[at]!);
      const read = this.#store.rowsOf.forEach(saved, (classified) => {
        const rank = rankOf.get(leaseKey(classified.sourceId, classified.lease.id));
        if (rank !== undefined) leases[rank] = classified;
      });
      if (read && leases.every((classified) => classified !== undefined))
        return this.#actedOn.apply({ ...inventory, leases }, new Date());
      this.#holdStoredInstead();
    }
    return this.#inventory;
  }

  #find(leaseId: string, sourceId: string | null): FoundLease | null {
    const found = this.#lookUp(leaseId, sourceId);
    if (found === undefined) return null;
    const related = found.sharedWith.flatMap((id) => {
      const other = this.#lookUp(id, found.sourceId);
      return other === undefined ? [] : [other];
    });
    return { lease: found, related, companies: this.#inventory?.companies ?? [] };
  }

  /**
   * A row held or shelved. Without a source, the row with that id that comes first in the whole
   * inventory, whether it is held or shelved (the same lease id in two sources), as before the shelving.
   */
  #lookUp(leaseId: string, sourceId: string | null, again = true): ClassifiedLease | undefined {
    const held = this.#byId.get(leaseKey(sourceId ?? undefined, leaseId));
    const shelf = this.#shelf;
    const store = this.#store;
    if (shelf === null || store === null) return held;
    const key = this.#shelvedKey(leaseId, sourceId, held);
    if (key === null && held !== undefined) return held;
    const read = key === null ? undefined : store.rowsOf.byKeys(shelf.saved, [key])?.[0];
    if (read !== undefined) return this.#marked([read])[0];
    // Not found: in this save, or because another writer saved over it (then asked again of that one).
    if (!again || store.rowsOf.holds(shelf.saved)) return held;
    this.#holdStoredInstead();
    return this.#lookUp(leaseId, sourceId, false);
  }

  /** The key to read from the shelf, or null when the held row (if any) is the answer. */
  #shelvedKey(leaseId: string, sourceId: string | null, held: ClassifiedLease | undefined): RowKey | null {
    if (sourceId !== null) return held === undefined ? { sourceId, leaseId } : null;
    const inHistory = this.#shelf?.history.firstWithId(leaseId) ?? null;
    const live = this.#shelf?.live.firstWithId(leaseId) ?? null;
    const shelved = inHistory === null || (live !== null && live.rank < inHistory.rank) ? live : inHistory;
    if (shelved === null) return null;
    return held === undefined || shelved.rank < this.#rankOfHeld(held)
      ? { sourceId: shelved.sourceId, leaseId }
      : null;
  }

  /** A held row's place in the whole inventory, shelved rows counted. */
  #rankOfHeld(held: ClassifiedLease): number {
    const at = this.#inventory?.leases.indexOf(held) ?? -1;
    return at === -1 ? Number.POSITIVE_INFINITY : (this.#shelf?.heldRanks[at] ?? at);
  }

  #untracked(): UntrackedAnswer | null {
    const inventory = this.#inventory;
    if (inventory === null) return null;
    return {
      generatedAt: inventory.generatedAt,
      untracked: inventory.untracked,
      untrackedUncertain: inventory.untrackedUncertain,
    };
  }
}

/** What the keeper needs of the secret redactor: the keys to take out, and taking them out. */
export interface KeyRedactor {
  set(values: readonly string[]): void;
  redactDeep<T>(value: T): T;
}

/** A thrown error as words main can act on; a source's or config's message says what to fix. */
export function failureOf(error: unknown): WorkerFailure {
  if (error instanceof SourceError) return { kind: "source", message: error.message };
  if (isCoreError(error, "config")) return { kind: "config", message: error.message };
  return { kind: "internal", message: messageOf(error) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sameSourceSet(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  const other = new Set(b);
  return set.size === other.size && [...set].every((id) => other.has(id));
}

/** A short fingerprint of a JSON text: telling two versions of one row apart, not a secret. */
function fingerprint(text: string): string {
  return hash("sha1", text, "base64");
}

/** Two runs of rows, each in inventory order with its places in it, as one run in that order. */
function mergeByRank(
  a: readonly ClassifiedLease[],
  aRanks: ArrayLike<number>,
  b: readonly ClassifiedLease[],
  bRanks: ArrayLike<number>,
): { leases: ClassifiedLease[]; ranks: number[] } {
  const leases: ClassifiedLease[] = [];
  const ranks: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const fromA = j >= b.length || (i < a.length && aRanks[i]! < bRanks[j]!);
    leases.push(fromA ? a[i]! : b[j]!);
    ranks.push(fromA ? aRanks[i++]! : bRanks[j++]!);
  }
  return { leases, ranks };
}

function leaseKey(sourceId: string | undefined, leaseId: string): string {
  return sourceId === undefined ? leaseId : `${sourceId}\u0000${leaseId}`;
}
