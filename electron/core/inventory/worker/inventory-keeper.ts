import { hash } from "node:crypto";
import {
  emptyLeaseColumns,
  type HistoryPage,
  type HistoryPageRequest,
  type InventoryView,
  InventoryViewBuilder,
} from "../../../../shared/contract/index.js";
import type { ActionSelection } from "../../../../shared/domain/actions.js";
import { originOf } from "../../../../shared/domain/api-url.js";
import { HEADLINES, QUIET_HEADLINES } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory, LeasekeeperAction } from "../../../../shared/domain/inventory.js";
import {
  leaseStatuses,
  type PassPlan,
  planPass,
  policyHeadlines,
  policyRowColumns,
  policyRowPicker,
  proofOwners,
  proofPrefixes,
  recordersNow,
  selectionContext,
} from "../../../../shared/domain/janitor/index.js";
import { judgeRow } from "../../../../shared/domain/judge-row.js";
import {
  buildMarkerIndex,
  type MarkerIndex,
  recordedMarker,
} from "../../../../shared/domain/marker-proof.js";
import { NO_INPUTS } from "../../../../shared/domain/no-inputs.js";
import { planPicker, planRowFilter } from "../../../../shared/domain/plan-rows.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { isCoreError } from "../../errors/core-error.js";
import { closeSources, createSources, type LeaseSource, SourceError } from "../../leases/index.js";
import type { LedgerItemDigests } from "../../leases/ledger-item-digests.js";
import { judgeScan, type SourceToJudge } from "../judge/judged-scan.js";
import { judgingSalt } from "../judge/judging-salt.js";
import { prefetched } from "../judge/prefetched-read.js";
import { RULES_FINGERPRINT } from "../judge/rules-fingerprint.js";
import { ScanMemory } from "../judge/scan-memory.js";
import { openLedgerItems, type SealedLedgerItems, sealLedgerItems } from "../judge/sealed-ledger-items.js";
import { LeasekeeperActions } from "../leasekeeper-actions.js";
import { historyPage } from "./history-pages.js";
import type {
  InventoryRows,
  KeptViews,
  KeyRedactor,
  RowCursor,
  SharedViews,
  StoredHead,
  StoredScan,
} from "./ports.js";
import type {
  Accepted,
  AttentionRows,
  EncodedView,
  FoundLease,
  PolicyPlanInput,
  RowsPage,
  RowsToProve,
  ScanSetup,
  UntrackedAnswer,
  WorkerFailure,
  WorkerRequest,
} from "./protocol.js";
import { quarantineProofNow } from "./quarantine-proof.js";
import { compareRowPlaces } from "./row-order.js";
import { type ListedPage, ScanListings } from "./scan-listings.js";
import { UnredactedRows } from "./unredacted-rows.js";
import { type FlippedRows, liveViewOptions, ViewAtOpen } from "./view-at-open.js";
import { encodedView, type ViewEncodings, viewEncodings, viewEncodingsAround } from "./view-encodings.js";

export type { InventoryRows, KeptViews, KeyRedactor, SharedViews } from "./ports.js";

const ATTENTION_HEADLINES = HEADLINES.filter((headline) => !QUIET_HEADLINES.includes(headline));

/** Views kept for main to take: the newest, and the one before it that main may be taking still. */
const KEPT_VIEWS = 2;
/**
 * Rows each source may read ahead while CreateOS is listed: the read overlaps the listing, and no more
 * than this many rows per source wait in memory for it.
 */
const READ_AHEAD_ROWS = 5_000;
/** Tries of a scan whose flip another process's scan overtook (the CLI's, on the same data directory). */
const SCAN_ATTEMPTS = 2;
/**
 * Rows read from the store per page of the team's save: a few megabytes of rows, each page sent as
 * chunks before the next is read.
 */
const SHARED_PAGE_ROWS = 2_000;
/** Tries of the team's save when a job's mark writes the same scan anew while its rows are sent. */
const SHARED_SAVE_ATTEMPTS = 3;

interface PendingScan {
  setup: ScanSetup;
  listings: ScanListings;
  /** Every source's read, opened (its environments known) and reading ahead. */
  opened: Promise<OpenedSource[]>;
  startedAt: number;
}

interface OpenedSource extends SourceToJudge {
  source: LeaseSource;
}

/** What the keeper holds of the inventory in the store: everything but its rows. */
interface Held {
  head: StoredHead;
  generation: number;
}

/**
 * The inventory as the worker keeps it (decision 222): each scan's sources streamed, judged and written
 * into the store (`judgeScan`), the compact view of the rows that are not closed read back from there
 * and handed to main in parts, and every question about rows (a lease's detail, an environment's view,
 * a page of history, the whole inventory for plans and proofs) answered from the store. What stays in
 * the heap is the scan-wide part of the inventory, the views main may still be fetching, and what the
 * next scan compares with (`ScanMemory`). One instance per worker; plain code over its requests, so it
 * runs the same under a test without a thread.
 */
export class InventoryKeeper {
  readonly #rows: InventoryRows;
  readonly #redactor: KeyRedactor;
  /** Which set of keys main last told: views carry it, so main knows what they were redacted for. */
  #redactionsVersion = 0;
  #redactions: readonly string[] = [];
  readonly #viewStore: KeptViews | null;
  readonly #onStoreFailed: (failure: WorkerFailure) => void;
  readonly #onReplaced: (accepted: Accepted) => void;
  readonly #sharedViews: SharedViews | null;
  /** The shared store's write under way, which `saved` and `close` wait for. */
  #sharedSave: Promise<void> = Promise.resolve();
  readonly #marks = new LeasekeeperActions();
  readonly #memory = new ScanMemory();
  /** The salt the memory was remembered or restored under, for keeping it in the store. */
  #memorySalt: string | null = null;
  /** The salt rows are judged under with the keys in use now (`judgingSalt`); drawn when first needed. */
  #salt: Promise<string> | null = null;
  readonly #unredacted: UnredactedRows;
  readonly #scans = new Map<number, PendingScan>();
  /** The list pages of the last scan judged, by the digest of their bytes (see `listing-page`). */
  #listedPages: ReadonlyMap<string, ListedPage> = new Map();
  #held: Held | null = null;
  /**
   * Views main has not taken yet, by generation, encoded once as the bytes hosts answer with (each is
   * transferred when taken, so it is held here only until then); the newest few are kept.
   */
  readonly #views = new Map<number, EncodedView>();
  /** The view built of the stored inventory at the open, until the first scan is taken (`ViewAtOpen`). */
  #viewAtOpen: ViewAtOpen | null = null;
  // Starts from the clock, so a worker started again after one stopped still counts up from main's view.
  #generation = Date.now() * 1000;
  #closed = false;

  /**
   * `rows` is the store the inventory lives in (the worker's own connection; taking the configured keys
   * out with the same `redactor` first); the views main receives are redacted here too. `onStoreFailed` is
   * told, unasked, when the store failed the keeper: a save, the team's inventory loaded at start, or a
   * scan's memory kept beside its rows (`WorkerFailure.during`). `onReplaced` is
   * told when a read finds that another process flipped a scan of its own into the store, and the keeper
   * holds that inventory instead of its own.
   */
  constructor(
    rows: InventoryRows,
    redactor: KeyRedactor,
    onStoreFailed: (failure: WorkerFailure) => void,
    viewStore: KeptViews | null = null,
    sharedViews: SharedViews | null = null,
    onReplaced: (accepted: Accepted) => void = () => undefined,
  ) {
    this.#rows = rows;
    this.#redactor = redactor;
    this.#onStoreFailed = onStoreFailed;
    this.#viewStore = viewStore;
    this.#sharedViews = sharedViews;
    this.#onReplaced = onReplaced;
    this.#unredacted = new UnredactedRows(redactor);
  }

  async handle(request: WorkerRequest): Promise<unknown> {
    switch (request.type) {
      case "redactions":
        this.#setRedactions(request.values, request.version);
        return null;
      case "load-stored":
        return this.#loadStored();
      case "read-sources":
        this.#readSources(request);
        return null;
      case "listing-page":
        this.#scans.get(request.scanId)?.listings.addPage(request.listing, request.page, request.views);
        return null;
      case "listing-done":
        this.#scans.get(request.scanId)?.listings.end(request.listing, request.result, request.pages);
        return null;
      case "listing-pages-from": {
        // The thread's entry feeds what arrives on the port to `handle`. The answer is the pages this
        // scan need not have parsed: those of the last scan judged, as they stand now.
        const scan = this.#scans.get(request.scanId);
        if (scan === undefined) return [];
        scan.listings.known = this.#listedPages;
        return [...scan.listings.known.values()].map(({ page }) => page);
      }
      case "judge":
        return this.#judge(request.scanId, request.listings, request.requests, new Date(request.now));
      case "forget-scan":
        await this.#forgetScan(request.scanId);
        return null;
      case "accept":
        return this.#takeWhole(request.inventory, sourcesOf(request.inventory));
      case "acted-on":
        return this.#actedOn(request.origin, request.sandboxId, request.mark, new Date(request.now));
      case "view":
        return this.#environmentView(request.environmentId);
      case "view-bytes":
        return this.#viewBytes(request.generation);
      case "history-page":
        return this.#historyPage(request.page);
      case "find":
        return this.#find(request.leaseId, request.sourceId);
      case "untracked":
        return this.#untracked();
      case "inventory":
        return this.#whole();
      case "inventory-for-plan":
        return this.#forPlan(request.selection);
      case "policy-plan":
        return this.#policyPlan(request.input);
      case "attention-rows":
        return this.#attentionRows();
      case "inventory-recording":
        return this.#recording(request.sandboxIds);
      case "rows-to-prove":
        return this.#rowsToProve(request.leaseIds);
      case "marker-index":
        return this.#markerIndex(request.markers, request.scan);
      case "quarantine-proof":
        return this.#fromStore(({ head }) =>
          quarantineProofNow(this.#rows, head, (stored) => this.#unredacted.prefer(stored), request.input),
        );
      case "rows-page":
        return this.#rowsPage(request);
      case "saved":
        await this.#sharedSave;
        return null;
      case "close":
        this.#closed = true;
        await Promise.all([...this.#scans.keys()].map((scanId) => this.#forgetScan(scanId)));
        await this.#sharedSave;
        return null;
    }
  }

  /**
   * The keys in use now. When they change, the next scan reads every row and judges each again under
   * another salt, so that each is compared with the store as it is now written (a key newly configured
   * is taken out of every row that held it). The same keys after a restart give the same salt.
   */
  #setRedactions(values: readonly string[], version: number): void {
    const changed =
      values.length !== this.#redactions.length || values.some((value, at) => value !== this.#redactions[at]);
    this.#redactor.set(values);
    this.#redactions = [...values];
    this.#redactionsVersion = version;
    if (changed) {
      this.#salt = null;
      this.#memory.forget();
    }
  }

  /** The salt of these rules and the keys in use now, with the store's seed (decision 224). */
  #judgingSalt(): Promise<string> {
    if (this.#salt === null) {
      const salt = judgingSalt({
        rules: RULES_FINGERPRINT,
        keys: this.#redactions,
        seed: this.#rows.judgingSeed(),
      });
      // A salt that could not be drawn is drawn again by the next scan.
      salt.catch(() => {
        if (this.#salt === salt) this.#salt = null;
      });
      this.#salt = salt;
    }
    return this.#salt;
  }

  async #loadStored(): Promise<Accepted | null> {
    const held = this.#held;
    const team = await this.#loadTeamInventory(held);
    if (team !== null) return team;
    // A scan taken while the team's store was read is newer than anything stored.
    if (this.#held !== held) return null;
    const head = this.#rows.head();
    return head === null ? null : this.#take(head, { atOpen: true });
  }

  /**
   * Loads the inventory the team's store keeps for the configured sources into this store and holds it,
   * when it was scanned later than the one this data directory keeps for the same sources (or this one
   * keeps none for them); its rows are written a page at a time as they are read. Scans are compared by
   * `generatedAt`; on a tie this machine's own is loaded, which costs no transfer. Null when there is
   * none newer, when a scan was taken here meanwhile (it is newer than anything stored, and the load is
   * let go of), or when the store cannot be read (reported; this machine's own is loaded instead).
   */
  async #loadTeamInventory(held: Held | null): Promise<Accepted | null> {
    const shared = this.#sharedViews;
    if (shared === null) return null;
    const local = this.#rows.lastScan();
    const sourceIds = shared.configuredSources;
    const sameSources = local !== null && sameSourceSet(local.sourceIds, sourceIds);
    try {
      const loaded = await shared.loadNewer(
        sourceIds,
        sameSources ? local.generatedAt : null,
        async (team) => {
          if (this.#held !== held) return null;
          // The rows a configured key would be taken out of, held as the team's store gave them.
          const unredacted: ClassifiedLease[] = [];
          const redactor = this.#redactor;
          // What the team's store failed with, told apart from what this machine's store did.
          let teamFailure: { error: unknown } | null = null;
          async function* noting(): AsyncGenerator<readonly ClassifiedLease[]> {
            try {
              for await (const page of team.pages) {
                for (const row of page) if (redactor.redactDeep(row) !== row) unredacted.push(row);
                yield page;
              }
            } catch (error) {
              teamFailure = { error };
              throw error;
            }
          }
          try {
            await this.#rows.savePages(team.inventory, noting(), sourceIds);
          } catch (error) {
            if (isOvertaken(error)) return null;
            if (teamFailure !== null) throw error;
            // Not the team's store: reported here, so that it is not worded as a failed read of it.
            this.#onStoreFailed({
              kind: "internal",
              message: `the team's inventory could not be written to this machine's store: ${messageOf(error)}`,
              during: "load",
            });
            return null;
          }
          // Kept for this machine's next start, not sent back to the store it came from.
          return this.#held === held ? this.#holdSavedWhole(unredacted, { share: false }) : null;
        },
      );
      return loaded ?? null;
    } catch (error) {
      this.#onStoreFailed({ kind: "internal", message: messageOf(error), during: "load" });
      return null;
    }
  }

  #readSources(setup: ScanSetup): void {
    const opened = this.#openSources(setup);
    // Judged later; until then a failure must not count as unhandled.
    opened.catch(() => undefined);
    // Drawn on the thread pool while the sources are read and CreateOS is listed, not after.
    this.#judgingSalt().catch(() => undefined);
    this.#scans.set(setup.scanId, {
      setup,
      listings: new ScanListings(),
      opened,
      startedAt: performance.now(),
    });
  }

  /**
   * Opens every configured source's read, each where `ScanMemory` says it may start, each reading a
   * little ahead while CreateOS is listed. A source that cannot be opened fails them all (its sandboxes
   * would otherwise look like orphans), and the others are let go of.
   */
  async #openSources({ config, env }: ScanSetup): Promise<OpenedSource[]> {
    const sources = createSources(config, { env });
    const identities = new Map(sources.map((source, at) => [source.id, identityOf(config.sources[at], env)]));
    if (this.#memory.empty) await this.#restoreMemory(identities);
    const opening = await Promise.allSettled(
      sources.map(async (source): Promise<OpenedSource> => {
        const identity = identities.get(source.id)!;
        const since = this.#memory.since(source.id, identity);
        const startedAt = Date.now();
        // A row held as its source gave it is judged by every scan that reads it: its file is read whole.
        const lastItems = this.#unredacted.holdsAnyOf(source.id)
          ? undefined
          : this.#memory.lastItems(source.id, identity);
        const read = await source.read({
          ...(since === undefined ? {} : { since }),
          ...(lastItems === undefined ? {} : { lastItems }),
        });
        return { source, read: prefetched(read, READ_AHEAD_ROWS), identity, startedAt };
      }),
    );
    const failed = opening.find((result) => result.status === "rejected");
    if (failed === undefined)
      return opening.map((result) => (result as PromiseFulfilledResult<OpenedSource>).value);
    await letGo(opening.flatMap((result) => (result.status === "fulfilled" ? [result.value] : [])));
    await closeSources(sources);
    throw failed.reason;
  }

  async #forgetScan(scanId: number): Promise<void> {
    const scan = this.#scans.get(scanId);
    if (scan === undefined) return;
    this.#scans.delete(scanId);
    await letGo(await scan.opened.catch(() => []));
  }

  async #judge(scanId: number, count: number, requests: number, now: Date): Promise<Accepted> {
    const scan = this.#scans.get(scanId);
    if (scan === undefined) throw new Error("no scan with that id was started");
    // The reads the scan holds open, let go of however it ends.
    let opened: Promise<OpenedSource[]> = scan.opened;
    try {
      // Every listing main said had ended, with all its pages: some may still be on their way.
      const listings = await scan.listings.allIn(count);
      this.#scans.delete(scanId);
      let sources = await opened;
      for (let attempt = 1; ; attempt++) {
        // Awaited before the write begins, so that a salt still being drawn holds no write open.
        const salt = await this.#judgingSalt();
        const write = this.#unredacted.watching(
          this.#rows.beginScan(sources.map(({ read }) => read.sourceId)),
        );
        try {
          const judged = await judgeScan({
            rows: write,
            sources,
            listings,
            requests,
            now,
            marks: this.#marks,
            memory: this.#memory,
            salt,
            digest: fingerprint,
            leaseOf: (stored) => this.#unredacted.leaseOf(stored),
          });
          const sourcesMs = performance.now() - scan.startedAt;
          const flipped = write.flip(judged);
          judged.remember();
          this.#memorySalt = salt;
          this.#keepMemory(flipped.stored.generation);
          // A page is the same as the last scan's only if this scan judged well: the next scan knows its pages.
          this.#listedPages = scan.listings.listed;
          const head = this.#rows.head();
          if (head === null)
            throw new Error("the store holds no inventory right after a scan was written to it");
          const accepted = this.#take(head, { keep: true, flipped });
          return {
            ...accepted,
            sourcesMs,
            rows: { judged: judged.rows.judged, reused: judged.rows.kept },
            pages: scan.listings.pages,
          };
        } catch (error) {
          write.abandon();
          // Another process's scan flipped over this one's sources meanwhile: read them again, whole.
          if (!isOvertaken(error) || attempt >= SCAN_ATTEMPTS) throw error;
          await letGo(sources);
          this.#memory.forget();
          opened = this.#openSources(scan.setup);
          sources = await opened;
        }
      }
    } finally {
      this.#scans.delete(scanId);
      await letGo(await opened.catch(() => []));
    }
  }

  /** Holds an inventory judged whole elsewhere (the team's, or one main hands over), saved as one scan. */
  #takeWhole(inventory: Inventory, sourceIds: readonly string[] = sourcesOf(inventory)): Accepted {
    this.#rows.saveWhole(inventory, sourceIds);
    return this.#holdSavedWhole(inventory.leases, { share: true });
  }

  /**
   * Holds the inventory judged elsewhere that was just saved whole; `rows` holds at least its rows a
   * configured key is taken out of, kept as they were given. `share`: keep it in the team's store too.
   */
  #holdSavedWhole(rows: Iterable<ClassifiedLease>, { share }: { share: boolean }): Accepted {
    // Its rows were not judged here and are stored without inputs: the next scan judges every row again.
    this.#memory.forget();
    this.#unredacted.clear();
    for (const classified of rows) this.#unredacted.note(classified);
    const head = this.#rows.head();
    if (head === null) throw new Error("the store holds no inventory right after one was saved to it");
    return this.#take(head, { keep: true, share });
  }

  /**
   * Holds the stored scan `head` under a new generation and encodes its view. `keep`: this process
   * wrote it, so the view is kept for the next start, here and (unless `share` is false) in the team's
   * store. `atOpen`: the stored inventory loaded when the process opened, whose view is held for its
   * first scan. `flipped`: what the scan that stored `head` left of the rows, so that a scan that left
   * every row of that inventory as it stood takes its view, not one read again from every live row.
   */
  #take(
    head: StoredHead,
    {
      keep = false,
      share = keep,
      atOpen = false,
      flipped,
    }: { keep?: boolean; share?: boolean; atOpen?: boolean; flipped?: FlippedRows } = {},
  ): Accepted {
    const untracked = head.inventory.untracked.filter(
      (sandbox) => !this.#marks.deleted(sandbox.origin, sandbox.sandboxId),
    );
    const shown: StoredHead = { ...head, inventory: { ...head.inventory, untracked } };
    const unchanged = flipped === undefined ? null : (this.#viewAtOpen?.viewOf(shown, flipped) ?? null);
    this.#viewAtOpen = null;
    const built = unchanged?.view ?? this.#builtView(shown) ?? this.#builtView(shown);
    if (built === null) throw new Error("the stored inventory changed while its view was read");
    const view = this.#redactor.redactDeep(built);
    const generation = ++this.#generation;
    this.#held = { head: shown, generation };
    const encoded: ViewEncodings =
      unchanged === null
        ? viewEncodings(view, generation)
        : viewEncodingsAround(view, this.#redactor.redactJson(unchanged.leases), generation);
    // Held as built, the keys not taken out, so that keys told after the open (main tells them once the
    // worker has been asked for the stored inventory) are taken out of it as out of a view built anew;
    // where taking the keys out copied the view, its columns were encoded redacted, and none is held.
    // The team's store is handed the view whole, lease columns and all: none is held where it is kept.
    if (atOpen && view.leases === built.leases && this.#sharedViews === null)
      this.#viewAtOpen = new ViewAtOpen(shown, built, encoded.leases);
    const { kept, forMain } = encoded;
    this.#views.set(generation, forMain);
    this.#views.delete(generation - KEPT_VIEWS);
    if (keep && !this.#closed) {
      this.#viewStore?.save(view.generatedAt, kept);
      if (share) this.#keepShared(shown, view);
    }
    return {
      generation,
      summary: {
        generatedAt: head.inventory.generatedAt,
        origins: head.inventory.origins,
        gaps: head.inventory.gaps,
        leaseCount: head.rowCount,
      },
      view: { ...view, leases: emptyLeaseColumns() },
      redactedFor: this.#redactionsVersion,
    };
  }

  /** The view of the rows that are not closed (with `environmentId`, of that environment's); null: not that scan. */
  #viewOf(head: StoredHead, environmentId?: string): InventoryView | null {
    const built = this.#builtView(head, environmentId);
    return built === null ? null : this.#redactor.redactDeep(built);
  }

  /** `#viewOf` as the builder finishes it, the configured keys not yet taken out. */
  #builtView(head: StoredHead, environmentId?: string): InventoryView | null {
    const builder = new InventoryViewBuilder(head.inventory, liveViewOptions(head, environmentId));
    const read = this.#rows.forEachLiveViewRow(head.scan, (row) => builder.add(row), environmentId);
    return read ? builder.finish() : null;
  }

  /**
   * Keeps the view and the whole inventory in the team's store, after the answer that showed them. The
   * rows are read from the store a page at a time as they are sent, so the heap never holds them all.
   * When the scan is flipped again meanwhile (a job's mark writes the same scan anew), the save starts
   * over from the scan held then, if it is still the same scan; a later scan is kept by its own save.
   */
  #keepShared(head: StoredHead, view: InventoryView): void {
    const shared = this.#sharedViews;
    if (shared === null) return;
    const sourceIds = head.scan.sourceIds;
    this.#sharedSave = this.#sharedSave
      .then(async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        await shared.save(sourceIds, view);
        let kept: StoredHead | undefined = head;
        for (let attempt = 1; kept !== undefined; attempt++) {
          const scan = kept.scan;
          try {
            const inventory = this.#redactor.redactDeep(kept.inventory);
            await shared.saveInventory(sourceIds, { inventory, pages: this.#sharedPages(scan) });
            return;
          } catch (error) {
            if (!(error instanceof ScanFlippedWhileKept) || attempt >= SHARED_SAVE_ATTEMPTS) throw error;
          }
          const now = this.#held?.head;
          const same = now?.inventory.generatedAt === head.inventory.generatedAt;
          kept = same && sameSourceSet(now.scan.sourceIds, sourceIds) ? now : undefined;
        }
      })
      .catch((error: unknown) => {
        this.#onStoreFailed({ kind: "internal", message: messageOf(error) });
      });
  }

  /** Every row of `scan` as pages for the team's store, keys taken out; throws once it is not the stored scan. */
  async *#sharedPages(scan: StoredScan): AsyncGenerator<ClassifiedLease[]> {
    let after: RowCursor | null = null;
    do {
      const page = this.#rows.page(scan, { after, limit: SHARED_PAGE_ROWS });
      if (page === null) throw new ScanFlippedWhileKept();
      if (page.rows.length > 0) yield this.#redactor.redactDeep(this.#preferred(page).rows);
      after = page.next;
    } while (after !== null);
  }

  /**
   * A job's mark (a sandbox it confirmed destroyed or paused): the rows naming the sandbox are judged
   * again with it and written at once, as a small scan of their own, so every answer from now on shows
   * it; later scans keep applying it. Answered with the view it changed (null: nothing did). After
   * another process's scan was flipped into the store, that inventory is held instead, marked, and the
   * answer says `replaced` (a notice sent beside the answer could reach main after it is shown).
   */
  #actedOn(origin: string, sandboxId: string, mark: LeasekeeperAction, now: Date): Accepted | null {
    if (!this.#marks.note(origin, sandboxId, mark)) return null;
    for (let attempt = 0; attempt < 2; attempt++) {
      const held = this.#held;
      if (held === null) return null;
      const naming = this.#rows.rowsNaming(held.head.scan, originOf(origin) ?? origin, sandboxId);
      if (naming === null) {
        this.#holdStoredInstead({ tell: false });
        continue;
      }
      const untrackedHere = held.head.inventory.untracked.some(
        (sandbox) => sandbox.sandboxId === sandboxId && this.#marks.deleted(sandbox.origin, sandboxId),
      );
      if (naming.length === 0 && !untrackedHere && attempt === 0) return null;
      this.#keepMemory(this.#writeMarked(held.head, naming, now));
      const head = this.#rows.head();
      if (head === null) return null;
      const accepted = this.#take(head);
      return attempt === 0 ? accepted : { ...accepted, replaced: true };
    }
    return null;
  }

  #writeMarked(
    head: StoredHead,
    naming: readonly { seq: number; classified: ClassifiedLease }[],
    now: Date,
  ): number {
    const write = this.#unredacted.watching(this.#rows.beginScan(head.scan.sourceIds));
    try {
      write.keepListingTimes();
      for (const sourceId of head.scan.sourceIds) write.beginSource(sourceId, "changed");
      for (const { seq, classified: stored } of naming) {
        const classified = this.#unredacted.prefer(stored);
        const others = this.#relatedRows(head, classified).map((other) => other.lease);
        const provider = this.#marks.observe(classified.provider, classified.lease.providerLeaseId);
        const judged = judgeRow({
          sourceId: classified.sourceId,
          row: classified.lease,
          environment: classified.environment,
          provider,
          shared: { others, count: classified.sharedWithCount ?? classified.sharedWith.length },
          installedPlugin: classified.installedPlugin,
          now,
        });
        // Judged again by the next scan, which reads the listing the mark stands over.
        write.write(judged, { seq, inputs: NO_INPUTS, rejudgeAtMs: now.getTime() });
      }
      for (const sourceId of head.scan.sourceIds) write.endSource(sourceId);
      const { inventory } = head;
      return write.flip(
        {
          generatedAt: inventory.generatedAt,
          requests: inventory.requests,
          payload: {
            untracked: inventory.untracked,
            untrackedUncertain: inventory.untrackedUncertain,
            origins: inventory.origins,
            companies: inventory.companies,
            gaps: inventory.gaps,
            ...(inventory.sourceNotes === undefined ? {} : { sourceNotes: inventory.sourceNotes }),
          },
        },
        { keepNewSinceLastScan: true },
      ).stored.generation;
    } catch (error) {
      write.abandon();
      throw error;
    }
  }

  /**
   * Keeps the memory of the scan just flipped as `generation` in the store beside its rows (decision
   * 238), for a process started again over it. A source with a row held here as its source gave it
   * (`UnredactedRows`) is left out: a process started again holds no such row, and reads it whole.
   */
  #keepMemory(generation: number): void {
    const salt = this.#memorySalt;
    if (salt === null) return;
    try {
      const kept = this.#memory.toKeep(generation, {
        salt: saltCheck(salt),
        keyed: keyedIdentity(salt),
        digest: fingerprint,
        marked: this.#marks.marked(),
        sources: (sourceId) => !this.#unredacted.holdsAnyOf(sourceId),
        seal: (digests) => this.#sealedLedgerItems(digests, salt),
      });
      if (kept === null) return;
      this.#rows.keepScanMemory(kept.memory, kept.listing, kept.ledgerItems);
      this.#memory.kept(generation);
    } catch (error) {
      // Not kept: a process started again reads every source whole, as if none had been. The scan
      // stands; main says so in its log.
      this.#onStoreFailed({ kind: "internal", message: messageOf(error), during: "keep-memory" });
    }
  }

  /**
   * A ledger's item digests sealed to be kept (decision 313), unless a problem or gap they carry names a
   * configured key: as with the rest of a source's memory, such a ledger is read whole after a restart.
   */
  #sealedLedgerItems(digests: LedgerItemDigests, salt: string): SealedLedgerItems | null {
    const reported = { problems: digests.leaseProblems, gaps: digests.leaseGaps };
    if (this.#redactor.redactDeep(reported) !== reported) return null;
    return sealLedgerItems(digests, salt);
  }

  /**
   * Takes the memory the scan the store holds kept, when this process remembers nothing: kept under the
   * salt rows are judged under now, for the sources configured now with the same identity. A store
   * whose rows another writer flipped since keeps none that stands (`keptScanMemory`).
   */
  async #restoreMemory(identities: ReadonlyMap<string, string>): Promise<void> {
    try {
      const kept = this.#rows.keptScanMemory();
      if (kept === null) return;
      const drawing = this.#judgingSalt();
      const salt = await drawing;
      // Other keys told meanwhile draw another salt: what was kept under this one no longer stands.
      if (this.#salt !== drawing || kept.memory.salt !== saltCheck(salt) || !this.#memory.empty) return;
      const ledgerItems = new Map<string, LedgerItemDigests>();
      for (const [sourceId, sealed] of kept.ledgerItems) {
        const digests = openLedgerItems(sealed, salt);
        if (digests !== null) ledgerItems.set(sourceId, digests);
      }
      this.#memory.restore(kept, identities, keyedIdentity(salt), ledgerItems);
      this.#memorySalt = salt;
    } catch {
      // Nothing restored: every source is read whole.
      this.#memory.forget();
    }
  }

  /**
   * After another writer flipped a scan into the store this keeper's inventory is in (the CLI's scan on
   * the same data directory): the inventory the store holds now is held instead, a new generation.
   */
  #holdStoredInstead({ tell = true }: { tell?: boolean } = {}): Accepted | null {
    // What this process read and judged is no longer what the store holds.
    this.#memory.forget();
    this.#unredacted.clear();
    const head = this.#rows.head();
    if (head === null) {
      this.#held = null;
      return null;
    }
    const accepted: Accepted = { ...this.#take(head), replaced: true };
    if (tell) this.#onReplaced(accepted);
    return accepted;
  }

  /** Reads from the stored scan held; once more, from the store's newer scan, when another writer flipped one. */
  #fromStore<T>(read: (held: Held) => T | null): T | null {
    for (let attempt = 0; attempt < 2; attempt++) {
      const held = this.#held;
      if (held === null) return null;
      const answer = read(held);
      if (answer !== null) return answer;
      this.#holdStoredInstead();
    }
    return null;
  }

  #environmentView(environmentId: string): EncodedView | null {
    const view = this.#fromStore(({ head }) => this.#viewOf(head, environmentId));
    return view === null ? null : encodedView(view);
  }

  /** Handed over once: its bytes are transferred to main, which leaves them unusable here. */
  #viewBytes(generation: number): EncodedView | null {
    const view = this.#views.get(generation);
    if (view === undefined) return null;
    this.#views.delete(generation);
    return view;
  }

  #historyPage(request: HistoryPageRequest): HistoryPage | null {
    return this.#fromStore(({ head, generation }) => {
      const page = historyPage(this.#rows, head, generation, request);
      return page === null ? null : this.#redactor.redactDeep(page);
    });
  }

  #find(leaseId: string, sourceId: string | null): FoundLease | null {
    const found = this.#fromStore(({ head }) => {
      const rows = sourceId === null ? null : this.#rows.byKeys(head.scan, [{ sourceId, leaseId }]);
      const row =
        sourceId === null ? this.#rows.firstWithId(head.scan, leaseId) : rows === null ? null : rows[0];
      // Null: the store no longer holds this scan (undefined: it holds no such row).
      if (row === null) return null;
      if (row === undefined) return { found: undefined };
      const lease = this.#unredacted.prefer(row);
      return {
        found: { lease, related: this.#relatedRows(head, lease), companies: head.inventory.companies },
      };
    });
    return found?.found ?? null;
  }

  /** The rows a row names in `sharedWith`, as their sources gave them. */
  #relatedRows(head: StoredHead, classified: ClassifiedLease): ClassifiedLease[] {
    if (classified.sharedWith.length === 0) return [];
    const keys = classified.sharedWith.map((id) => ({ sourceId: classified.sourceId, leaseId: id }));
    return (this.#rows.byKeys(head.scan, keys) ?? []).flatMap((other) =>
      other === undefined ? [] : [this.#unredacted.prefer(other)],
    );
  }

  #untracked(): UntrackedAnswer | null {
    const held = this.#held;
    if (held === null) return null;
    const { inventory } = held.head;
    return {
      generatedAt: inventory.generatedAt,
      untracked: inventory.untracked,
      untrackedUncertain: inventory.untrackedUncertain,
    };
  }

  /** The whole inventory, its rows read from the store in order (plans, proofs, the janitor, metrics). */
  #whole(): Inventory | null {
    return this.#fromStore(({ head }) => this.#wholeOf(head));
  }

  /**
   * The inventory a plan of `selection` reads (see the request): the rows it picks, then the rows they
   * share a sandbox with that it did not pick, each as the store orders them. Read by lease id or
   * headline, so a plan of a few rows reads a few rows however many the store holds.
   */
  #forPlan(selection: ActionSelection): Inventory | null {
    return this.#fromStore(({ head }) => this.#forPlanOf(head, selection));
  }

  #forPlanOf(head: StoredHead, selection: ActionSelection): Inventory | null {
    const filter = planRowFilter(selection);
    const picks = planPicker(selection);
    if (filter === null) return { ...head.inventory, leases: [] };
    const picked: ClassifiedLease[] = [];
    const read = this.#rows.forEachWith(head.scan, filter, (classified) => {
      if (picks(classified)) picked.push(this.#unredacted.prefer(classified));
    });
    if (!read) return null;
    const keyOf = (classified: ClassifiedLease) => JSON.stringify([classified.sourceId, classified.lease.id]);
    const taken = new Set(picked.map(keyOf));
    const sharedIds = [...new Set(picked.flatMap((classified) => classified.sharedWith))];
    const sharing: ClassifiedLease[] = [];
    const readShared =
      sharedIds.length === 0 ||
      this.#rows.forEachWith(head.scan, { leaseIds: sharedIds }, (classified) => {
        if (!taken.has(keyOf(classified))) sharing.push(this.#unredacted.prefer(classified));
      });
    return readShared ? { ...head.inventory, leases: [...picked, ...sharing] } : null;
  }

  /**
   * A janitor's plan of a policy (see the request), from one pass over the stored rows that keeps only
   * those some rule matches: a pass over a store of a million rows holds the rows the policy is about,
   * not the history it passes over.
   */
  #policyPlan(input: PolicyPlanInput): PassPlan | null {
    const now = new Date(input.now);
    return this.#fromStore(({ head }) => {
      const owners = proofOwners(input.proofs);
      const ownerRows = owners.length === 0 ? [] : this.#rows.byKeys(head.scan, owners);
      if (ownerRows === null) return null;
      const statuses = leaseStatuses({
        leases: ownerRows.flatMap((row) => (row === undefined ? [] : [row])),
      });
      // Every row recording a marker a kept proof found, history too: a proof is checked against the
      // rows as they are now, not only the owners it named when it was read.
      const prefixes = proofPrefixes(input.proofs);
      const recording: ClassifiedLease[] = [];
      const readRecorders =
        prefixes.length === 0 ||
        this.#rows.forEachWith(head.scan, { markerPrefixes: prefixes }, (stored) =>
          recording.push(this.#unredacted.prefer(stored)),
        );
      if (!readRecorders) return null;
      const recorders = recordersNow(
        recording.map(({ sourceId, lease }) => ({ sourceId, lease })),
        prefixes,
      );
      const matched = policyRowPicker(
        input.policy,
        selectionContext({ inventory: head.inventory, proofs: input.proofs, statuses, recorders, now }),
      );
      const leases: ClassifiedLease[] = [];
      const keep = (stored: ClassifiedLease) => {
        const classified = this.#unredacted.prefer(stored);
        if (matched(classified)) leases.push(classified);
      };
      // Every row but history (no rule selects it), read in whichever order is cheapest; the rows kept
      // are put in the sources' order after, since a plan takes its candidates, and its caps count them,
      // in the inventory's order.
      const keepAll = (): boolean => {
        const placed: { classified: ClassifiedLease; place: RowCursor }[] = [];
        const read = this.#rows.forEachLiveRow(head.scan, (stored, place) => {
          const classified = this.#unredacted.prefer(stored);
          if (matched(classified)) placed.push({ classified, place });
        });
        placed.sort((a, b) => compareRowPlaces(a.place, b.place));
        for (const { classified } of placed) leases.push(classified);
        return read;
      };
      // By the headline index when the rules name the headlines they match; by the other columns the
      // rules name, without parsing a row they rule out; every row when some rule names none of them.
      const rules = policyRowColumns(input.policy, {
        environments: head.inventory.environments.map(({ environmentId, name }) => ({
          id: environmentId,
          name,
        })),
        companies: head.inventory.companies,
      });
      const headlines = rules === null ? null : policyHeadlines(rules);
      const read =
        rules === null
          ? keepAll()
          : headlines !== null
            ? headlines.length === 0 || this.#rows.forEachWith(head.scan, { headlines }, keep)
            : this.#rows.forEachMatching(head.scan, rules, keep);
      if (!read) return null;
      return planPass({
        policy: input.policy,
        inventory: { ...head.inventory, leases },
        proofs: input.proofs,
        statuses,
        recorders,
        now,
        history: input.history,
        quarantines: input.quarantines,
      });
    });
  }

  /** Everything but the rows, and the rows that record one of these sandboxes, read by its index. */
  #recording(sandboxIds: readonly string[]): Inventory | null {
    return this.#fromStore(({ head }) => {
      const leases: ClassifiedLease[] = [];
      const read =
        sandboxIds.length === 0 ||
        this.#rows.forEachWith(head.scan, { sandboxIds }, (stored) =>
          leases.push(this.#unredacted.prefer(stored)),
        );
      return read ? { ...head.inventory, leases } : null;
    });
  }

  /** A page of every row, of the inventory held or of the scan named (see the request). */
  #rowsPage(request: Extract<WorkerRequest, { type: "rows-page" }>): RowsPage | null {
    const { after, limit, environmentId } = request;
    const options = { after, limit, ...(environmentId === undefined ? {} : { environmentId }) };
    if (request.scan !== null) {
      const page = this.#rows.page(request.scan, options);
      return page === null ? null : { scan: request.scan, ...this.#preferred(page) };
    }
    return this.#fromStore(({ head }) => {
      const counts = this.#rows.headlineCounts(head.scan, environmentId);
      const page = counts === null ? null : this.#rows.page(head.scan, options);
      if (page === null || counts === null) return null;
      return {
        scan: head.scan,
        ...this.#preferred(page),
        first: { inventory: head.inventory, counts },
      };
    });
  }

  #preferred<T extends { rows: ClassifiedLease[] }>(page: T): T {
    return { ...page, rows: page.rows.map((row) => this.#unredacted.prefer(row)) };
  }

  /** The rows a proof of these leases reads, and the scan they are of (see the request). */
  #rowsToProve(leaseIds: readonly string[]): RowsToProve | null {
    const selection: ActionSelection = { kind: "leases", leaseIds: [...leaseIds] };
    return this.#fromStore(({ head }) => {
      const inventory = this.#forPlanOf(head, selection);
      return inventory === null ? null : { scan: head.scan, inventory };
    });
  }

  /** The rows of a scan recording each marker, in the store's order, read by the marker's index (see the request). */
  #markerIndex(markers: readonly string[], scan: StoredScan | null): MarkerIndex | "replaced" | null {
    const wanted = new Set(markers);
    const read = (of: StoredScan): MarkerIndex | null => {
      if (wanted.size === 0) return this.#rows.holds(of) ? new Map() : null;
      const recording: ClassifiedLease[] = [];
      const done = this.#rows.forEachWith(of, { markers: [...wanted] }, (stored) => {
        const classified = this.#unredacted.prefer(stored);
        const marker = recordedMarker(classified.lease.metadata);
        if (marker !== null && wanted.has(marker)) recording.push(classified);
      });
      return done ? buildMarkerIndex(recording) : null;
    };
    if (scan !== null) return this.#held === null ? null : (read(scan) ?? "replaced");
    return this.#fromStore(({ head }) => read(head.scan));
  }

  /** The rows needing an operator, read by headline, and every row counted by headline (see the request). */
  #attentionRows(): AttentionRows | null {
    return this.#fromStore(({ head }) => {
      const counts = this.#rows.headlineCounts(head.scan);
      if (counts === null) return null;
      const leases: ClassifiedLease[] = [];
      const read = this.#rows.forEachWith(head.scan, { headlines: ATTENTION_HEADLINES }, (stored) =>
        leases.push(this.#unredacted.prefer(stored)),
      );
      return read ? { inventory: { ...head.inventory, leases }, counts } : null;
    });
  }

  #wholeOf(head: StoredHead): Inventory | null {
    const leases: ClassifiedLease[] = [];
    const read = this.#rows.forEach(head.scan, (classified) =>
      leases.push(this.#unredacted.prefer(classified)),
    );
    return read ? { ...head.inventory, leases } : null;
  }
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

/** Whether a scan's flip failed because another process's scan was flipped over its sources meanwhile. */
function isOvertaken(error: unknown): boolean {
  return error instanceof Error && error.name === "InventoryChangedMeanwhile";
}

/** The scan whose rows the team's save was sending is no longer the one the store holds. */
class ScanFlippedWhileKept extends Error {
  override name = "ScanFlippedWhileKept";
  constructor() {
    super("the stored inventory was replaced while it was kept in the team's store");
  }
}

/** Lets go of every read and closes every source (a database's connections). */
async function letGo(opened: readonly OpenedSource[]): Promise<void> {
  await Promise.all(opened.map(({ read }) => read.cancel().catch(() => undefined)));
  await closeSources(opened.map(({ source }) => source));
}

function sameSourceSet(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  const other = new Set(b);
  return set.size === other.size && [...set].every((id) => other.has(id));
}

/** Every source an inventory names. */
function sourcesOf(inventory: Inventory): string[] {
  return [
    ...new Set([
      ...inventory.environments.map((environment) => environment.sourceId),
      ...inventory.leases.map((lease) => lease.sourceId),
      ...inventory.problems.map((problem) => problem.source),
    ]),
  ];
}

/** The source's entry and the value of each variable it names (a database URL), as a fingerprint. */
function identityOf(entry: LeasekeeperConfig["sources"][number] | undefined, env: Record<string, string>) {
  return hash("sha1", JSON.stringify([entry, env]), "base64");
}

/** What a kept memory names its salt by: a digest, as a row's inputs begin with it (the salt is never stored). */
function saltCheck(salt: string): string {
  return fingerprint(`scan memory\u0000${salt}`);
}

/**
 * A source's identity keyed by the salt, as it is kept at rest: the identity is a digest of the source's
 * connection string, and the salt is drawn from the configured keys through scrypt, so what is kept is
 * no cheap test of a guessed one.
 */
function keyedIdentity(salt: string): (identity: string) => string {
  return (identity) => fingerprint(`${salt}\u0000${identity}`);
}

/** A short fingerprint of a JSON text: telling two versions of one row apart, not a secret. */
function fingerprint(text: string): string {
  return hash("sha1", text, "base64");
}
