import type { MessagePort } from "node:worker_threads";
import type { HistoryPageRequest, InventoryView } from "../../../../shared/contract/index.js";
import type { ActionSelection } from "../../../../shared/domain/actions.js";
import type { Headline } from "../../../../shared/domain/codes.js";
import type {
  ClassifiedLease,
  Inventory,
  LeasekeeperAction,
  OriginHealth,
  SandboxListing,
  UncertainSandbox,
  UntrackedSandbox,
} from "../../../../shared/domain/inventory.js";
import type { PastAction, Policy, ProofReading } from "../../../../shared/domain/janitor/index.js";
import type { MarkerProof } from "../../../../shared/domain/marker-proof.js";
import type { Company, SourceGap } from "../../../../shared/domain/paperclip.js";
import type { Quarantine } from "../../../../shared/domain/quarantine.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import type { PageFetchAbort, PageFetchRequest, PageFetchTake } from "./list-page-fetch.js";
import type { RowCursor, StoredScan } from "./ports.js";

/**
 * What the main thread and the inventory worker say to each other. Every request carries an id and is
 * answered once, with the same id. The worker never calls CreateOS (the listings come from main's paced
 * client, so pacing stays one queue per origin); it is told the keys in use only to take them out of what
 * it stores. Main never holds the whole inventory.
 */

/** What main keeps of an inventory: enough for the status bar and for knowing its age. */
export interface InventorySummary {
  generatedAt: string;
  origins: OriginHealth[];
  /** What a source could not read: a plan of the rows read says so (`leasekeeper plan`). */
  gaps: SourceGap[];
  leaseCount: number;
}

/** Everything of a view but its lease columns: what main reads of it itself. */
export type ViewMeta = Omit<InventoryView, "leases">;

/**
 * A view as the UTF-8 JSON hosts answer with, transferred to main (not copied): main hands the bytes on
 * and never builds the string per id that the parsed view would be.
 */
export interface EncodedView {
  meta: ViewMeta;
  bytes: ArrayBuffer;
}

/**
 * An inventory the worker now holds: its summary and its compact view, encoded once. The view comes
 * without its lease columns; main takes the whole view as bytes (`view-bytes`): a 100,000-row view
 * parsed on main would be 190,000 id strings, which its young collections copy while they are held.
 */
export interface Accepted {
  /** Counts inventories accepted by this worker; names the view its parts are cut from. */
  generation: number;
  summary: InventorySummary;
  view: InventoryView;
  /** For a scan the worker judged: how long reading every source took. */
  sourcesMs?: number;
  /** For a scan the worker judged: rows judged afresh, and rows whose verdict nothing had changed. */
  rows?: { judged: number; reused: number };
  /**
   * For a scan the worker judged: list pages read, pages the same as the last scan's, and pages the
   * same as another listing's of this scan; only the first were parsed.
   */
  pages?: { read: number; reused: number; repeated: number };
  /** The version of the keys the view was redacted for (see the `redactions` request). */
  redactedFor: number;
  /** The inventory another process saved over the store, held instead of the worker's own (not scanned by this run). */
  replaced?: true;
}

/** Given to the worker when it starts. */
export interface WorkerSetup {
  /** Where the store is (the same SQLite file main opened); null keeps nothing on disk. */
  dataDir: string | null;
  /**
   * The store a team shares, when one is configured: the worker keeps the last view and inventory there
   * too, and reads the team's at start for the sources configured then (`sourceIds`). The connection
   * string lives only in this thread's memory and the driver's, never in a message.
   */
  sharedStore?: { url: string; urlEnv: string; timeoutMs: number; sourceIds: string[] } | null;
}

export interface ScanSetup {
  scanId: number;
  config: LeasekeeperConfig;
  /** Only the variables that sources name (Paperclip tokens), never the whole environment. */
  env: Record<string, string>;
}

export type WorkerRequest =
  /** The keys in use now (the `version`th set main told): taken out of every view and stored inventory. */
  | { type: "redactions"; values: string[]; version: number }
  | { type: "load-stored" }
  | ({ type: "read-sources" } & ScanSetup)
  /**
   * One page of the `listing`th credential's listing, its sandboxes as CreateOS sent them, which the
   * worker reads. Pages of one listing arrive in order, before its `listing-done`.
   */
  /**
   * One list page of the `listing`th credential, named by the digest of its bytes. `views` is null for
   * a page whose bytes were the same as a page of the last scan the worker judged (`KnownPage`), or as
   * one this scan sent it with views before: the worker takes the sandboxes it read from that page.
   */
  | { type: "listing-page"; scanId: number; listing: number; page: KnownPage; views: unknown[] | null }
  /**
   * The `listing`th credential's listing has ended: `result` (its `sandboxes` empty) says how, after
   * `pages` pages. Only an `ok` result makes those pages its sandboxes; after a failure they are
   * dropped, never judged as a whole listing. Pages may come on another port (from the list-page
   * reader) and so after this message: the listing is whole once all `pages` are in.
   */
  | { type: "listing-done"; scanId: number; listing: number; result: SandboxListing; pages: number }
  /**
   * The port on which the list-page reader sends this scan's pages (`listing-page` requests). Answered
   * with the pages of the last scan the worker judged (`KnownPage[]`), which the reader need not parse.
   */
  | { type: "listing-pages-from"; scanId: number; port: MessagePort }
  | { type: "judge"; scanId: number; listings: number; requests: number; now: string }
  /** Main gave up on this scan before asking for its judgement: what it read and was sent is let go. */
  | { type: "forget-scan"; scanId: number }
  | { type: "accept"; inventory: Inventory }
  | { type: "acted-on"; origin: string; sandboxId: string; mark: LeasekeeperAction; now: string }
  /** An environment's view (`EncodedView`); null while no inventory is held. */
  | { type: "view"; environmentId: string }
  /** The view of generation `generation` (`EncodedView`), handed over once; null once it is not kept. */
  | { type: "view-bytes"; generation: number }
  /** A page of history (history-pages.ts) from the inventory held now; null while it holds none. */
  | { type: "history-page"; page: HistoryPageRequest }
  | { type: "find"; leaseId: string; sourceId: string | null }
  | { type: "untracked" }
  | { type: "inventory" }
  /**
   * The inventory as a plan of `selection` reads it: everything but the rows, and of the rows only those
   * the selection picks and the rows they share a sandbox with (`planPicker`); null while none is held.
   */
  | { type: "inventory-for-plan"; selection: ActionSelection }
  /**
   * A janitor's plan of a policy (`planPass`) over the inventory held, worked out where the rows are:
   * over the rows its rules match and the statuses of the leases its proofs name, each read from the
   * store (`PassPlan`); null while none is held.
   */
  | { type: "policy-plan"; input: PolicyPlanInput }
  /**
   * The inventory as a quarantine's claims read it: everything but the rows, and of the rows only those
   * that record one of these sandboxes, in any origin (`recordedSandboxId`); null while none is held.
   */
  | { type: "inventory-recording"; sandboxIds: string[] }
  /**
   * What a proof reads first (`RowsToProve`): the inventory as a plan of these leases reads it
   * (`inventory-for-plan`), and the scan it is of; null while none is held.
   */
  | { type: "rows-to-prove"; leaseIds: string[] }
  /**
   * For each of these markers, every stored row of `scan` that records it (`buildMarkerIndex` over every
   * row, kept to them), read by the marker's index; "replaced" once the store no longer holds `scan` (a
   * rescan was flipped since the proof read its rows), so a proof never judges against two inventories.
   * With `scan` null, of the inventory held now; null while none is held.
   */
  | { type: "marker-index"; markers: string[]; scan: StoredScan | null }
  /**
   * A quarantine's kept marker proof read again over the inventory held (`QuarantineProofNow`), as a
   * janitor's plan of a destroy of its sandbox reads it: of the rows, only the quarantined one and those
   * recording the proof's marker or naming its owners, each read by its index; null while none is held.
   */
  | { type: "quarantine-proof"; input: QuarantineProofInput }
  /**
   * Every row in order, a page at a time (`RowsPage`), for a reader that writes them out as it goes
   * (`leasekeeper scan`). The first page (`scan` null) is of the inventory held; each later one names the
   * scan the first was of, and is null once the store no longer holds it (another process's scan was
   * flipped over it), so a reader never mixes rows of two inventories.
   */
  | {
      type: "rows-page";
      scan: StoredScan | null;
      after: RowCursor | null;
      limit: number;
      environmentId?: string;
    }
  /** The rows that need an operator and every row's headline counted (`AttentionRows`); null while none is held. */
  | { type: "attention-rows" }
  | { type: "saved" }
  | { type: "close" };

/**
 * What the metrics' figures read of an inventory (`inventoryFigures`): everything but the rows, of the
 * rows only those whose headline needs an operator (neither ok nor closed), and how many rows in all
 * have each headline, read from the store's columns.
 */
export interface AttentionRows {
  inventory: Inventory;
  counts: Record<Headline, number>;
}

/** The rows a proof reads, and the scan they are of (the `rows-to-prove` request). */
export interface RowsToProve {
  scan: StoredScan;
  inventory: Inventory;
}

/** A page of every row (the `rows-page` request). */
export interface RowsPage {
  scan: StoredScan;
  rows: ClassifiedLease[];
  /** Where the next page starts; null after the last. */
  next: RowCursor | null;
  /** On the first page only: everything but the rows, and the rows counted by headline (in scope). */
  first?: { inventory: Inventory; counts: Record<Headline, number> };
}

/** Everything a janitor's plan reads besides the inventory (see `PassInput`). */
export interface PolicyPlanInput {
  /** The policy without what only main uses (its webhook). */
  policy: Omit<Policy, "webhook">;
  /** Every kept marker proof. */
  proofs: MarkerProof[];
  now: string;
  history: PastAction[];
  quarantines: Pick<Quarantine, "sandboxId" | "origin" | "state">[];
}

/** What a quarantine's proof is read again for: the sandbox as the quarantine names it, and its kept proof. */
export interface QuarantineProofInput {
  quarantine: Pick<Quarantine, "sandboxId" | "origin" | "leaseId" | "sourceId">;
  /** The proof kept under what the quarantine names; null when none is. */
  proof: MarkerProof | null;
}

/**
 * The `quarantine-proof` answer: whether the inventory lists the sandbox as the quarantine names it (a
 * live row, or a sandbox no row names), and if so `readProof`'s reading of a destroy of it; null when a
 * destroy of it is not a forced one, which reads no proof.
 */
export type QuarantineProofNow = { listed: false } | { listed: true; reading: ProofReading | null };

export interface FoundLease {
  lease: ClassifiedLease;
  /** The rows it names in `sharedWith`, by lease id. */
  related: ClassifiedLease[];
  companies: Company[];
}

export interface UntrackedAnswer {
  generatedAt: string;
  untracked: UntrackedSandbox[];
  untrackedUncertain: UncertainSandbox[];
}

/** Why a request failed, in words main can turn into the same error it would have thrown itself. */
export interface WorkerFailure {
  kind: "source" | "config" | "internal";
  message: string;
  /**
   * Said unasked of something other than a save: the team's inventory could not be loaded at start
   * (`load`), the thread was started again at its heap budget (`restart`), or a scan's memory could not
   * be kept beside its rows (`keep-memory`).
   */
  during?: "load" | "restart" | "keep-memory";
}

export type WorkerMessage =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; failure: WorkerFailure }
  /** Said unasked: a background save failed (main logs it; the inventory is still shown). */
  | { id: null; ok: false; failure: WorkerFailure }
  /**
   * Said unasked: a read found that another process had saved over the store (the CLI's scan on the
   * same data directory), and the worker now holds the inventory the store holds, under a new generation.
   */
  | { id: null; ok: true; replaced: Accepted };

/** A list page as the digest of its bytes, with what the paging needs of it. */
export interface KnownPage {
  digest: string;
  count: number;
  total: number | null;
}

/** What main asks the list-page reader (see list-page-reader.ts). */
export type PageReaderRequest =
  /**
   * This scan's pages go to the inventory worker on `port`; a page whose bytes are one of `known` is
   * not parsed again (the worker holds what it read from it).
   */
  | { type: "scan"; scanId: number; port: MessagePort; known: readonly KnownPage[] }
  /** One page of the `listing`th credential's listing, as the bytes CreateOS sent. */
  | { type: "page"; scanId: number; listing: number; body: ArrayBuffer }
  | { type: "scan-done"; scanId: number }
  /** A list page's request, made by the reader for main's paced transport (list-page-fetch.ts). */
  | PageFetchRequest
  | PageFetchAbort
  | PageFetchTake
  /** The reader's own memory, for tests and measurements; a host never asks. */
  | { type: "heap" };

/** What the list-page reader holds, in bytes: its young generation's semi-spaces and its array buffers. */
export interface ReaderHeap {
  youngBytes: number;
  arrayBufferBytes: number;
}

/** A page read: how many views it held and the listing's total; null when it was not a list page. */
export interface PageReaderAnswer {
  id: number;
  value: { count: number; total: number | null } | ReaderHeap | null;
}
