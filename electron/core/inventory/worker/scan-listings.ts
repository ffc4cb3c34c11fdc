import type { ProviderSandbox, SandboxListing } from "../../../../shared/domain/inventory.js";
import { readSandboxViews } from "../../createos/views.js";
import { ListedValues } from "./listed-values.js";
import type { KnownPage } from "./protocol.js";

/** The sandboxes one list page held, as read from its views (before a scan drops ids it has seen). */
export interface ListedPage {
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
 * One scan's listings as main's paced client takes them, put together page by page in the worker: the
 * pages come from the list-page reader (or, for a page whose bytes were a page of the last scan or of
 * another listing of this one, from what was read of it then), and a listing is whole once main says
 * it ended and all its pages are in.
 */
export class ScanListings {
  /** Every listing that has ended with all its pages in, by its index. */
  readonly #listings: SandboxListing[] = [];
  readonly #reading = new Map<number, ListingUnderWay>();
  /** Set by `allIn`: how many listings it waits for, and what to call once they are all in. */
  #awaited: { count: number; allIn: () => void } | null = null;
  /** The pages of the last scan judged when this one began listing: the reader skips parsing those. */
  known: ReadonlyMap<string, ListedPage> = new Map();
  /** Every page this scan listed, by digest, for the next scan to know. */
  readonly listed = new Map<string, ListedPage>();
  /**
   * Pages parsed, pages taken from the last scan's, and pages whose bytes another listing of this scan
   * gave (one account listed under two addresses), not parsed again.
   */
  readonly pages = { read: 0, reused: 0, repeated: 0 };
  /** A page named as known that this worker does not hold (it cannot happen by the protocol). */
  #unknownPage: string | null = null;
  readonly #values = new ListedValues();

  addPage(index: number, page: KnownPage, views: readonly unknown[] | null): void {
    const reading = this.#underWay(index);
    let listed: ListedPage | undefined;
    if (views !== null) {
      // Bytes another listing of this scan gave already (one account listed under two addresses) are
      // held as one reading, as the next scan will take them: each listing's entries are then the
      // same objects from one scan to the next, and comparing the two listings reads no sandbox.
      listed = this.listed.get(page.digest) ?? this.#read(page, views);
      this.pages.read += 1;
    } else {
      // Named by its digest alone: a page of the last scan judged, or the bytes another listing of this
      // scan sent with their views before (the reader sends a page's views once a scan).
      const fromLastScan = this.known.get(page.digest);
      listed = fromLastScan ?? this.listed.get(page.digest);
      if (fromLastScan !== undefined) this.pages.reused += 1;
      else this.pages.repeated += 1;
      this.#unknownPage ??= listed === undefined ? page.digest : null;
    }
    if (listed !== undefined) {
      this.listed.set(page.digest, listed);
      for (const sandbox of listed.sandboxes) {
        if (reading.seen.has(sandbox.id)) continue;
        reading.seen.add(sandbox.id);
        reading.sandboxes.push(sandbox);
      }
    }
    reading.pages += 1;
    this.#settle(index);
  }

  end(index: number, result: SandboxListing, pages: number): void {
    this.#underWay(index).ended = { result, pages };
    this.#settle(index);
  }

  /** The first `count` listings, once every one has ended with all its pages in. */
  async allIn(count: number): Promise<SandboxListing[]> {
    await new Promise<void>((allIn) => {
      this.#awaited = { count, allIn };
      this.#checkAllIn();
    });
    if (this.#unknownPage !== null)
      throw new Error(
        "a list page was named as one the worker held from the last scan, and it holds none such",
      );
    return this.#listings.slice(0, count);
  }

  #read(page: KnownPage, views: readonly unknown[]): ListedPage {
    const { sandboxes } = readSandboxViews(views);
    for (const sandbox of sandboxes) this.#values.share(sandbox);
    return { page, sandboxes };
  }

  #underWay(index: number): ListingUnderWay {
    let reading = this.#reading.get(index);
    if (reading === undefined) {
      reading = { sandboxes: [], seen: new Set(), pages: 0, ended: null };
      this.#reading.set(index, reading);
    }
    return reading;
  }

  /** A listing that has ended and has all its pages in becomes one of the scan's listings. */
  #settle(index: number): void {
    const reading = this.#reading.get(index);
    if (reading?.ended == null || reading.pages < reading.ended.pages) return;
    this.#reading.delete(index);
    const { result } = reading.ended;
    // A listing that failed part-way keeps its failure: the pages it had are not all its sandboxes.
    this.#listings[index] = result.outcome.ok
      ? { ...result, outcome: { ...result.outcome, sandboxes: reading.sandboxes } }
      : result;
    this.#checkAllIn();
  }

  #checkAllIn(): void {
    const awaited = this.#awaited;
    if (awaited === null) return;
    for (let index = 0; index < awaited.count; index++) if (this.#listings[index] === undefined) return;
    awaited.allIn();
  }
}
