import type { Transferable, Worker } from "node:worker_threads";
import type { WorkerFailure, WorkerMessage, WorkerRequest, WorkerSetup } from "./protocol.js";
import { startThread } from "./thread-entry.js";

/** A request the worker could not answer; `failure.kind` says whether a source or the config was at fault. */
export class InventoryWorkerError extends Error {
  override readonly name = "InventoryWorkerError";
  readonly failure: WorkerFailure;

  constructor(failure: WorkerFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The main thread's end of the inventory worker: one long-lived thread, requests answered in order by id.
 * If the thread dies, every waiting request fails, and the next request starts a new thread (the inventory
 * it held is read again from the store, or by the next scan).
 */
export class InventoryWorker {
  readonly #setup: WorkerSetup;
  readonly #onUnasked: (failure: WorkerFailure) => void;
  readonly #waiting = new Map<number, Waiting>();
  #worker: Worker | null = null;
  #exited: Promise<void> = Promise.resolve();
  #nextId = 1;
  #closing = false;
  /** The keys to redact, told again to every thread started after the first (a new thread knows none). */
  #redactions: Extract<WorkerRequest, { type: "redactions" }> | null = null;

  constructor(setup: WorkerSetup, onUnasked: (failure: WorkerFailure) => void) {
    this.#setup = setup;
    this.#onUnasked = onUnasked;
  }

  request<T>(request: WorkerRequest, transfer?: readonly Transferable[]): Promise<T> {
    if (this.#closing) return Promise.reject(new Error("the inventory worker is closed"));
    const worker = this.#thread();
    if (request.type === "redactions") this.#redactions = request;
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      // A request being answered keeps the process alive (a CLI or a benchmark has nothing else to).
      if (this.#waiting.size === 0) worker.ref();
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, request }, transfer ? [...transfer] : []);
    });
  }

  /** Lets the worker finish what it is saving, then ends the thread. */
  async close(): Promise<void> {
    if (this.#closing) return this.#exited;
    const worker = this.#worker;
    if (worker !== null) {
      await this.request({ type: "close" }).catch(() => undefined);
      // Held until the thread has ended, so a host that closes last waits for it.
      worker.ref();
    }
    this.#closing = true;
    await this.#exited;
  }

  #thread(): Worker {
    if (this.#worker !== null) return this.#worker;
    const worker = startThread("inventory-worker", { workerData: this.#setup });
    // An idle thread does not keep a host alive by itself: the host's own server or window does.
    worker.unref();
    // Requests are answered in order, so the keys are in place before anything this thread stores.
    if (this.#redactions !== null) worker.postMessage({ id: this.#nextId++, request: this.#redactions });
    worker.on("message", (message: WorkerMessage) => {
      if (message.id === null) {
        this.#onUnasked(message.failure);
        return;
      }
      const waiting = this.#waiting.get(message.id);
      if (waiting === undefined) return;
      this.#waiting.delete(message.id);
      if (this.#waiting.size === 0) worker.unref();
      if (message.ok) waiting.resolve(message.value);
      else waiting.reject(new InventoryWorkerError(message.failure));
    });
    this.#exited = new Promise<void>((resolve) => {
      worker.once("exit", (code) => {
        if (this.#worker === worker) this.#worker = null;
        const failure: WorkerFailure = {
          kind: "internal",
          message: `the inventory worker stopped (exit code ${code})`,
        };
        for (const waiting of this.#waiting.values()) waiting.reject(new InventoryWorkerError(failure));
        this.#waiting.clear();
        resolve();
      });
    });
    worker.on("error", (error) => {
      this.#onUnasked({ kind: "internal", message: error.message });
    });
    this.#worker = worker;
    return worker;
  }
}
