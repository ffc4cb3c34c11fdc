import type { Page } from "@playwright/test";

declare global {
  interface Window {
    /** Messages the search worker sent and the page has been handed so far. */
    searchWorkerDelivered?: number;
    /** Keeps the search worker's messages from the page until `releaseSearchWorker`. */
    holdSearchWorker?: () => void;
    /** Hands the page every message the search worker sent, and every later one at once. */
    releaseSearchWorker?: () => void;
  }
}

/**
 * Puts the search worker's messages to the page behind a gate the spec opens and closes, so it can see
 * what the page shows before the worker answers. `heldFromTheStart` closes the gate before the page's
 * first script runs; otherwise messages pass until `window.holdSearchWorker()`. Every message handed to
 * the page is counted in `window.searchWorkerDelivered`.
 */
export async function gateSearchWorker(
  page: Page,
  { heldFromTheStart }: { heldFromTheStart: boolean },
): Promise<void> {
  await page.addInitScript((held: boolean) => {
    const waiting: (() => void)[] = [];
    let open = !held;
    window.searchWorkerDelivered = 0;
    window.holdSearchWorker = () => {
      open = false;
    };
    window.releaseSearchWorker = () => {
      open = true;
      for (const deliver of waiting.splice(0)) deliver();
    };
    const add = Worker.prototype.addEventListener;
    Worker.prototype.addEventListener = function (
      this: Worker,
      type: string,
      listener: EventListenerOrEventListenerObject,
      options?: boolean | AddEventListenerOptions,
    ) {
      if (type !== "message" || typeof listener !== "function")
        return add.call(this, type, listener, options);
      const deliver = (event: Event) => {
        window.searchWorkerDelivered = (window.searchWorkerDelivered ?? 0) + 1;
        listener.call(this, event);
      };
      return add.call(
        this,
        type,
        (event: Event) => (open ? deliver(event) : waiting.push(() => deliver(event))),
        options,
      );
    } as typeof Worker.prototype.addEventListener;
  }, heldFromTheStart);
}
