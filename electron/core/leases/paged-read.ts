import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import type { SourceRead, SourceReadEnd } from "./source-read.js";

/** What a source knows of a read before its first row: everything on `SourceRead` but the pages. */
export type ReadHead = Omit<SourceRead, "pages" | "end" | "cancel">;

/** How a source reads its rows once the head is known. */
export interface PagesOfRead {
  /**
   * The pages, ending with what the read found beside them. It lets go of whatever it holds open in a
   * `finally`, so a consumer that stops early (a `break`, an error in its loop, `cancel`) frees it too.
   * `signal` is the caller's signal joined with the read's own cancel.
   */
  pages(signal: AbortSignal): AsyncGenerator<readonly LeaseRow[], SourceReadEnd, undefined>;
  /** Lets go of what the head's read left open, for a read cancelled before its pages were taken. */
  letGo?(): Promise<void>;
  signal?: AbortSignal | undefined;
}

/**
 * The rules every source's read keeps alike: the pages are taken once, `end()` answers only once they
 * have ended, and `cancel()` stops a read wherever it stands and lets go of what it holds.
 */
export function pagedRead(head: ReadHead, reading: PagesOfRead): SourceRead {
  return new PagedRead(head, reading);
}

class PagedRead implements SourceRead {
  readonly sourceId: string;
  readonly environments: SourceRead["environments"];
  readonly companies: SourceRead["companies"];
  readonly installedPlugin?: SourceRead["installedPlugin"];
  readonly note?: string;
  readonly scope: SourceRead["scope"];
  readonly order: SourceRead["order"];
  readonly #reading: PagesOfRead;
  readonly #cancelled = new AbortController();
  #taking: AsyncGenerator<readonly LeaseRow[], void, undefined> | null = null;
  /** Whether the source's pages began: from then on their own `finally` lets go of what they hold. */
  #begun = false;
  #lettingGo: Promise<void> | null = null;
  #end: SourceReadEnd | null = null;

  constructor(head: ReadHead, reading: PagesOfRead) {
    this.sourceId = head.sourceId;
    this.environments = head.environments;
    this.companies = head.companies;
    if (head.installedPlugin !== undefined) this.installedPlugin = head.installedPlugin;
    if (head.note !== undefined) this.note = head.note;
    this.scope = head.scope;
    this.order = head.order;
    this.#reading = reading;
  }

  pages(): AsyncIterable<readonly LeaseRow[]> {
    if (this.#taking !== null || this.#cancelled.signal.aborted)
      throw new Error(`${this.sourceId}: a read's pages are taken once, and not after it was cancelled.`);
    const signal =
      this.#reading.signal === undefined
        ? this.#cancelled.signal
        : AbortSignal.any([this.#reading.signal, this.#cancelled.signal]);
    const taking = this.#take(signal);
    this.#taking = taking;
    return taking;
  }

  end(): SourceReadEnd {
    if (this.#end === null)
      throw new Error(`${this.sourceId}: a read has no end before its pages have ended.`);
    return this.#end;
  }

  async cancel(): Promise<void> {
    this.#cancelled.abort(new Error(`${this.sourceId}: the read was cancelled.`));
    // A generator waiting on the source finishes that step first, then runs its `finally`.
    await this.#taking?.return(undefined).catch(() => undefined);
    if (!this.#begun) {
      this.#lettingGo ??= this.#reading.letGo?.() ?? Promise.resolve();
      await this.#lettingGo;
    }
  }

  async *#take(signal: AbortSignal): AsyncGenerator<readonly LeaseRow[], void, undefined> {
    this.#begun = true;
    this.#end = yield* this.#reading.pages(signal);
  }
}
