import type { Transferable, Worker } from "node:worker_threads";
import type { WorkerFailure, WorkerMessage, WorkerRequest, WorkerSetup } from "./protocol.js";
import { startThread } from "./thread-entry.js";
import { ThreadRequests } from "./thread-requests.js";

/** A request the worker could not answer; `failure.kind` says whether a source or the config was at fault. */
export class InventoryWorkerError extends Error {
  override readonly name = "InventoryWorkerError";
  readonly failure: WorkerFailure;

  constructor(failure: WorkerFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

/**
 * The main thread's end of the inventory worker: one long-lived thread, requests answered in order by id.
 * If the thread dies, every waiting request fails, and the next request starts a new thread (the inventory
 * it held is read again from the store, or by the next scan).
 */
export class InventoryWorker {
  readonly #setup: WorkerSetup;
  readonly #onUnasked: (failure: WorkerFailure) => void;
  #thread: { worker: Worker; requests: ThreadRequests } | null = null;
  #exited: Promise<void> = Promise.resolve();
  #closing = false;
  /** The keys to redact, told again to every thread started after the first (a new thread knows none). */
  #redactions: Extract<WorkerRequest, { type: "redactions" }> | null = null;

  constructor(setup: WorkerSetup, onUnasked: (failure: WorkerFailure) => void) {
    this.#setup = setup;
    this.#onUnasked = onUnasked;
  }

  request<T>(request: WorkerRequest, transfer?: readonly Transferable[]): Promise<T> {
    if (this.#closing) return Promise.reject(new Error("the inventory worker is closed"));
    const requests = this.#started();
    if (request.type === "redactions") this.#redactions = request;
    return requests.ask<T>(request, transfer);
  }

  /** Lets the worker finish what it is saving, then ends the thread. */
  async close(): Promise<void> {
    if (this.#closing) return this.#exited;
    const worker = this.#thread?.worker ?? null;
    if (worker !== null) {
      await this.request({ type: "close" }).catch(() => undefined);
      // Held until the thread has ended, so a host that closes last waits for it.
      worker.ref();
    }
    this.#closing = true;
    await this.#exited;
  }

  #started(): ThreadRequests {
    if (this.#thread !== null) return this.#thread.requests;
    const worker = startThread("inventory-worker", { workerData: this.#setup });
    // An idle thread does not keep a host alive by itself: the host's own server or window does.
    const requests = new ThreadRequests(
      worker,
      (code) =>
        new InventoryWorkerError({
          kind: "internal",
          message: `the inventory worker stopped (exit code ${code})`,
        }),
    );
    // Requests are answered in order, so the keys are in place before anything this thread stores.
    if (this.#redactions !== null) requests.tell(this.#redactions);
    worker.on("message", (message: WorkerMessage) => {
      if (message.id === null) this.#onUnasked(message.failure);
      else if (message.ok) requests.answer(message.id, { ok: true, value: message.value });
      else requests.answer(message.id, { ok: false, error: new InventoryWorkerError(message.failure) });
    });
    this.#exited = new Promise<void>((resolve) => {
      worker.once("exit", () => {
        if (this.#thread?.worker === worker) this.#thread = null;
        resolve();
      });
    });
    worker.on("error", (error) => {
      this.#onUnasked({ kind: "internal", message: error.message });
    });
    this.#thread = { worker, requests };
    return requests;
  }
}
