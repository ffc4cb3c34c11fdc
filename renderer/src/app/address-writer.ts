/** How long the search must hold still before the address follows it. */
export const SEARCH_SETTLE_MS = 300;

/** The part of `window.history` the writer uses (a fake in tests). */
export interface AddressHistory {
  pushState(data: unknown, unused: string, url: string): void;
  replaceState(data: unknown, unused: string, url: string): void;
}

/** What changed in the view since the address was last asked to follow it. */
export type AddressChange =
  /** Another view or scope: a new history entry, so Back returns to the one before. */
  | "entry"
  /** Only the search text: written once typing pauses. */
  | "search"
  /** Filters or the open lease: the current entry is replaced at once. */
  | "replace";

/**
 * Writes the address as the view changes. A search typed a key at a time is written once it has held
 * still for `settleMs`, not once a keystroke: each write is a history call, after which Chromium may
 * fetch and decode the page's icon again, on the page's main thread inside the keystroke, and a page
 * that writes its history too often is throttled by the browser. Any other change writes at once, after
 * the search waiting to be written; a navigation drops it.
 */
export class AddressWriter {
  #waiting: string | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly history: AddressHistory,
    private readonly settleMs: number = SEARCH_SETTLE_MS,
  ) {}

  /** The address now says `url`, by `change`. */
  follow(url: string, change: AddressChange): void {
    if (change === "search") {
      this.#waiting = url;
      this.#cancelTimer();
      this.#timer = setTimeout(() => this.flush(), this.settleMs);
      return;
    }
    // A search typed before the view changed belongs to the entry being left.
    if (change === "entry") this.flush();
    else this.drop();
    if (change === "entry") this.history.pushState(null, "", url);
    else this.history.replaceState(null, "", url);
  }

  /** The address of the search waiting to be written, or null. */
  get waiting(): string | null {
    return this.#waiting;
  }

  /** Writes the search waiting to be written, if any. */
  flush(): void {
    this.#cancelTimer();
    const url = this.#waiting;
    this.#waiting = null;
    if (url !== null) this.history.replaceState(null, "", url);
  }

  /** Forgets the search waiting to be written: the operator navigated, and the address is theirs. */
  drop(): void {
    this.#cancelTimer();
    this.#waiting = null;
  }

  #cancelTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
