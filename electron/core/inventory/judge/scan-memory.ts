import type { SourceProblem } from "../../../../shared/domain/paperclip.js";
import type { ListingIndex } from "../../../../shared/domain/provider-state.js";
import { needsFullPass } from "../../leases/changed-rows.js";
import type { ReadSince, SourceReadEnd } from "../../leases/source-read.js";

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
  lastFullPassAt: number;
  scansSinceFullPass: number;
}

/**
 * What one scan leaves for the next in this process, so the next reads and judges only what changed:
 * the listings (to tell which sandboxes' entries changed), each source's environments and plugin (to
 * tell which rows they changed), and how far each source read (its next read of changed rows starts
 * there, with a full pass now and then to notice deleted rows). Only a scan whose rows reached the store
 * is remembered; one that failed, or a store another process saved over, is forgotten, and the next scan
 * reads every source whole.
 *
 * What a row is compared with in the store does not live here: its inputs begin with the salt of the
 * rules and keys it was judged under (`judgingSalt`), which outlives the process.
 */
export class ScanMemory {
  #listing: ListingIndex | null = null;
  readonly #sources = new Map<string, SourceMemory>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The last scan's listings, or null: then every row's provider state is taken as new. */
  get listing(): ListingIndex | null {
    return this.#listing;
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

  /** Keeps what a scan that went through read, once its rows are in the store. */
  remember(
    listing: ListingIndex,
    sources: readonly (Omit<SourceMemory, "lastFullPassAt" | "scansSinceFullPass"> & {
      sourceId: string;
      startedAt: number;
    })[],
  ): void {
    this.#listing = listing;
    const kept = new Set<string>();
    for (const { sourceId, startedAt, ...read } of sources) {
      kept.add(sourceId);
      const before = this.source(sourceId, read.identity);
      const whole = read.readUpTo === undefined || read.readUpTo.fullPass || before === undefined;
      this.#sources.set(sourceId, {
        ...read,
        lastFullPassAt: whole ? startedAt : before.lastFullPassAt,
        scansSinceFullPass: whole ? 0 : before.scansSinceFullPass + 1,
      });
    }
    for (const sourceId of [...this.#sources.keys()]) if (!kept.has(sourceId)) this.#sources.delete(sourceId);
  }

  /** Forgets everything: the next scan reads every source whole and takes every listed sandbox as new. */
  forget(): void {
    this.#listing = null;
    this.#sources.clear();
  }
}
