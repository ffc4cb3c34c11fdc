import type { UnknownReason } from "../../../../shared/domain/inventory.js";
import type { SourceProblem } from "../../../../shared/domain/paperclip.js";
import type { ListedSandbox, ListingIndex } from "../../../../shared/domain/provider-state.js";
import { needsFullPass } from "../../leases/changed-rows.js";
import type { LedgerItemDigests } from "../../leases/ledger-item-digests.js";
import type { ReadSince, SourceReadEnd } from "../../leases/source-read.js";
import type { EarlierNames } from "./listed-names.js";
import {
  addChanged,
  type EarlierListing,
  EntryDigests,
  type ListingChanges,
  listingChanges,
} from "./listing-changes.js";
import type { KeptLedgerItems, KeptListing, KeptScanMemory } from "./ports.js";

/** What the last scan that went through left for the next about one source. */
interface SourceMemory {
  /** The source's configuration and the address it read, as a fingerprint: another one reads afresh. */
  identity: string;
  /** Each environment's version, by id: a changed one has its rows judged again. */
  environments: ReadonlyMap<string, string>;
  /** The installed plugin's version ("" when the source cannot read it). */
  plugin: string;
  problems: readonly SourceProblem[];
  readUpTo: SourceReadEnd["readUpTo"];
  /** A ledger file's items as the last read took them. */
  ledgerItems?: LedgerItemDigests | undefined;
  /** The token of the sealing the store keeps `ledgerItems` under, once kept (decision 313). */
  ledgerItemsKept?: string | undefined;
  lastFullPassAt: number;
  scansSinceFullPass: number;
}

/** What a scan remembers of one source it read. */
export type RememberedSource = Omit<
  SourceMemory,
  "lastFullPassAt" | "scansSinceFullPass" | "ledgerItemsKept"
> & {
  sourceId: string;
  startedAt: number;
};

/** A source's identity as it is kept at rest: it holds a connection string, so only a keyed digest is. */
export type KeyedIdentity = (identity: string) => string;

/**
 * A ledger's item digests as they are kept at rest: sealed, the sealing named by its token; null when
 * they are not to be kept (the source's ledger is then read whole after a restart).
 */
export type SealLedgerItems = (digests: LedgerItemDigests) => { token: string; sealed: Uint8Array } | null;

/**
 * What one scan leaves for the next, so the next reads and judges only what changed: the listings (to
 * tell which sandboxes' entries changed), each source's environments and plugin (to tell which rows they
 * changed), and how far each source read (its next read of changed rows starts there, with a full pass
 * now and then to notice deleted rows). Only a scan whose rows reached the store is remembered; one that
 * failed, or a store another process saved over, is forgotten, and the next scan reads every source
 * whole.
 *
 * It is also kept in the store beside the scan it belongs to (`toKeep`, decision 238), the listings as a
 * digest of each entry, so that a process started again over the same store (the app reopened, a
 * terminal's `leasekeeper scan`, a worker started again at its heap budget) reads only what changed
 * since, as this one would have (`restore`).
 *
 * What a row is compared with in the store does not live here: its inputs begin with the salt of the
 * rules and keys it was judged under (`judgingSalt`), which outlives the process.
 */
export class ScanMemory {
  #listing: EarlierListing | null = null;
  readonly #sources = new Map<string, SourceMemory>();
  readonly #now: () => number;
  #digests: EntryDigests | null = null;
  /**
   * Sandboxes a Leasekeeper job's mark was applied to when the memory kept in the store was taken: a
   * process started again holds no marks, so the rows naming them are judged again by its first scan.
   */
  #marked: readonly (readonly [string, string])[] = [];
  /** The generation of the scan whose memory the store keeps as this one stands, or null. */
  #keptGeneration: number | null = null;
  /** What the listing changed since the memory the store keeps (`#keptGeneration`); "whole": unknown. */
  #sinceKept: ListingChanges | "whole" = "whole";
  /**
   * Which sandboxes the last scan's listings showed alive that no row named: held in this process only
   * (a process started again asks the store for every one, once).
   */
  #listedNames: EarlierNames | null = null;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The tokens of the ledger digests `toKeep` sealed, by source, until `kept` says they were written. */
  #sealing = new Map<string, { digests: LedgerItemDigests; token: string }>();

  /** The last scan's listings, or null: then every row's provider state is taken as new. */
  get listing(): EarlierListing | null {
    return this.#listing;
  }

  /** Which sandboxes listed alive no row named at the last scan, or null: every one is asked again. */
  get listedNames(): EarlierNames | null {
    return this.#listedNames;
  }

  /** Whether nothing is remembered: no scan went through since the process began or forgot. */
  get empty(): boolean {
    return this.#listing === null && this.#sources.size === 0;
  }

  /** What a source's rows may have changed with, since the last scan's listings; null: everything. */
  changesTo(next: ListingIndex, digest: (text: string) => string): ListingChanges | null {
    if (this.#listing === null) return null;
    const changes = listingChanges(this.#listing, next, this.#entryDigests(digest));
    for (const [origin, sandboxId] of this.#marked) addChanged(changes, origin, sandboxId);
    return changes;
  }

  /** What the last scan knew of a source read with the same identity, or undefined. */
  source(sourceId: string, identity: string): SourceMemory | undefined {
    const known = this.#sources.get(sourceId);
    return known?.identity === identity ? known : undefined;
  }

  /**
   * Where the next read of a source may start: undefined for a whole read (none yet, another identity,
   * no listing to compare with, or a full pass due).
   */
  since(sourceId: string, identity: string): ReadSince | undefined {
    const known = this.source(sourceId, identity);
    if (known === undefined || this.#listing === null || known.readUpTo === undefined) return undefined;
    const fullPass = needsFullPass({
      lastFullPassAt: known.lastFullPassAt,
      scansSinceFullPass: known.scansSinceFullPass,
      now: this.#now(),
    });
    return {
      watermark: known.readUpTo.watermark,
      ...(known.readUpTo.basis === undefined ? {} : { basis: known.readUpTo.basis }),
      problems: known.problems,
      fullPass,
    };
  }

  /**
   * The items a ledger file's last read took, for a read of what changed since; undefined for a whole
   * read (none yet, another identity, or no listing to compare with: the scan judges every row then).
   */
  lastItems(sourceId: string, identity: string): LedgerItemDigests | undefined {
    if (this.#listing === null) return undefined;
    return this.source(sourceId, identity)?.ledgerItems;
  }

  /**
   * Keeps what a scan that went through read, once its rows are in the store; `changes` is what its
   * listings changed since the last scan's (`changesTo`), null when there was none to compare with;
   * `listedNames`, which sandboxes its listings showed alive that no row named.
   */
  remember(
    listing: ListingIndex,
    sources: readonly RememberedSource[],
    changes: ListingChanges | null,
    listedNames: EarlierNames | null = null,
  ): void {
    this.#listing = listing;
    this.#listedNames = listedNames;
    this.#marked = [];
    this.#sinceKept =
      changes === null || this.#sinceKept === "whole" ? "whole" : merged(this.#sinceKept, changes);
    const kept = new Set<string>();
    for (const { sourceId, startedAt, ...read } of sources) {
      kept.add(sourceId);
      const before = this.source(sourceId, read.identity);
      const whole = read.readUpTo === undefined || read.readUpTo.fullPass || before === undefined;
      // A read that changed no item's digest left the very digests the store may keep already.
      const sameItems = read.ledgerItems !== undefined && read.ledgerItems === before?.ledgerItems;
      this.#sources.set(sourceId, {
        ...read,
        lastFullPassAt: whole ? startedAt : before.lastFullPassAt,
        scansSinceFullPass: whole ? 0 : before.scansSinceFullPass + 1,
        ...(sameItems && before.ledgerItemsKept !== undefined
          ? { ledgerItemsKept: before.ledgerItemsKept }
          : {}),
      });
    }
    for (const sourceId of [...this.#sources.keys()]) if (!kept.has(sourceId)) this.#sources.delete(sourceId);
  }

  /** Forgets everything: the next scan reads every source whole and takes every listed sandbox as new. */
  forget(): void {
    this.#listing = null;
    this.#listedNames = null;
    this.#sources.clear();
    this.#marked = [];
    this.#keptGeneration = null;
    this.#sinceKept = "whole";
    this.#sealing.clear();
  }

  /**
   * What to keep in the store for the scan flipped as `generation`: the sources' memory, of those
   * `sources` allows (one left out is read whole after a restart), with `salt` (a digest of the judging
   * salt) and each identity `keyed`; and the listings' entries, only those changed since the memory
   * kept last when the store still keeps that one; and each ledger's item digests, `seal`ed where the
   * store does not keep them already (decision 313). Null when there is nothing to keep. Call `kept`
   * once it is written.
   */
  toKeep(
    generation: number,
    options: {
      salt: string;
      keyed: KeyedIdentity;
      digest: (text: string) => string;
      marked: readonly (readonly [string, string])[];
      sources?: (sourceId: string) => boolean;
      seal?: SealLedgerItems;
    },
  ): { memory: KeptScanMemory; listing: KeptListing; ledgerItems: KeptLedgerItems[] } | null {
    const listing = this.#listing;
    if (listing === null) return null;
    this.#sealing.clear();
    const ledgerItems: KeptLedgerItems[] = [];
    const keptItems = (sourceId: string, known: SourceMemory): { ledgerItems?: string } => {
      if (known.ledgerItems === undefined || options.seal === undefined) return {};
      if (known.ledgerItemsKept !== undefined) return { ledgerItems: known.ledgerItemsKept };
      const sealing = options.seal(known.ledgerItems);
      if (sealing === null) return {};
      const { token, sealed } = sealing;
      this.#sealing.set(sourceId, { digests: known.ledgerItems, token });
      ledgerItems.push({ sourceId, token, sealed });
      return { ledgerItems: token };
    };
    const digests = this.#entryDigests(options.digest);
    const digestOf = (entry: ListedSandbox | string): string =>
      typeof entry === "string" ? entry : digests.of(entry);
    const sinceKept = this.#sinceKept;
    const memory: KeptScanMemory = {
      generation,
      salt: options.salt,
      sources: [...this.#sources]
        .filter(([sourceId]) => options.sources?.(sourceId) ?? true)
        .map(([sourceId, known]) => ({
          sourceId,
          identity: options.keyed(known.identity),
          environments: [...known.environments],
          plugin: known.plugin,
          problems: [...known.problems],
          ...(known.readUpTo === undefined ? {} : { readUpTo: known.readUpTo }),
          lastFullPassAt: known.lastFullPassAt,
          scansSinceFullPass: known.scansSinceFullPass,
          ...keptItems(sourceId, known),
        })),
      origins: [...listing].map(([origin, { failure }]): [string, UnknownReason | null] => [origin, failure]),
      marked: [...this.#marked, ...options.marked].map(([origin, sandboxId]) => [origin, sandboxId]),
    };
    return {
      memory,
      ledgerItems,
      listing: {
        after: sinceKept === "whole" ? null : this.#keptGeneration,
        *changed() {
          if (sinceKept === "whole") return;
          for (const [origin, ids] of sinceKept.sandboxes)
            for (const sandboxId of ids) {
              const entry = listing.get(origin)?.sandboxes.get(sandboxId);
              yield [origin, sandboxId, entry === undefined ? null : digestOf(entry)];
            }
        },
        *whole() {
          for (const [origin, { sandboxes }] of listing)
            for (const [sandboxId, entry] of sandboxes) yield [origin, sandboxId, digestOf(entry)];
        },
      },
    };
  }

  /** The memory `toKeep` gave for `generation` is in the store: what changes next is counted from it. */
  kept(generation: number): void {
    this.#keptGeneration = generation;
    this.#sinceKept = { sandboxes: new Map(), origins: new Set() };
    for (const [sourceId, { digests, token }] of this.#sealing) {
      const known = this.#sources.get(sourceId);
      if (known?.ledgerItems === digests) known.ledgerItemsKept = token;
    }
    this.#sealing.clear();
  }

  /**
   * Takes the memory a scan kept in the store (by this process or another) as this one's, for the
   * sources configured now whose identity it names: `identities` maps each configured source to its
   * identity, `keyed` keys it as `toKeep` did; `ledgerItems`, the item digests of each ledger the store
   * kept them for, opened. The caller has checked that the store's rows are still that scan's and that
   * the salt is the one rows are judged under now.
   */
  restore(
    kept: { memory: KeptScanMemory; listing: EarlierListing },
    identities: ReadonlyMap<string, string>,
    keyed: KeyedIdentity,
    ledgerItems: ReadonlyMap<string, LedgerItemDigests> = new Map(),
  ): void {
    this.forget();
    this.#listing = kept.listing;
    this.#marked = kept.memory.marked;
    for (const source of kept.memory.sources) {
      const identity = identities.get(source.sourceId);
      if (identity === undefined || keyed(identity) !== source.identity) continue;
      this.#sources.set(source.sourceId, {
        identity,
        environments: new Map(source.environments),
        plugin: source.plugin,
        problems: source.problems,
        readUpTo: source.readUpTo,
        lastFullPassAt: source.lastFullPassAt,
        scansSinceFullPass: source.scansSinceFullPass,
        ...itemsKept(ledgerItems.get(source.sourceId), source.ledgerItems),
      });
    }
    this.kept(kept.memory.generation);
  }

  /** Entry digests are taken once per listed sandbox object, across scans. */
  #entryDigests(digest: (text: string) => string): EntryDigests {
    if (this.#digests === null) this.#digests = new EntryDigests(digest);
    return this.#digests;
  }
}

/** A ledger's digests as restored, with the token of the sealing the store keeps them under. */
function itemsKept(
  digests: LedgerItemDigests | undefined,
  token: string | undefined,
): Pick<SourceMemory, "ledgerItems" | "ledgerItemsKept"> {
  return digests === undefined || token === undefined ? {} : { ledgerItems: digests, ledgerItemsKept: token };
}

/** Both scans' listing changes as one. */
function merged(a: ListingChanges, b: ListingChanges): ListingChanges {
  const changes: ListingChanges = { sandboxes: new Map(), origins: new Set([...a.origins, ...b.origins]) };
  for (const each of [a, b])
    for (const [origin, ids] of each.sandboxes)
      for (const sandboxId of ids) addChanged(changes, origin, sandboxId);
  return changes;
}
