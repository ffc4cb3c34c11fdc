import type { Transferable, Worker } from "node:worker_threads";

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Main's bookkeeping of the requests to one thread, each answered by its id. While any request waits the
 * thread keeps its host alive, and only then: an idle thread holds no CLI or benchmark open. When the
 * thread stops, every request still waiting fails with `stopped`'s error, and so does any asked after.
 */
export class ThreadRequests {
  readonly #thread: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;
  /** Why the thread stopped, once it has: a request asked of it then would wait for ever. */
  #stopped: Error | null = null;

  constructor(thread: Worker, stopped: (exitCode: number) => Error) {
    this.#thread = thread;
    thread.unref();
    thread.once("exit", (code) => {
      const error = stopped(code);
      this.#stopped = error;
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
    });
  }

  /** Sends `request` and waits for its answer. */
  ask<T>(request: unknown, transfer: readonly Transferable[] = []): Promise<T> {
    if (this.#stopped !== null) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.#waiting.size === 0) this.#thread.ref();
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#thread.postMessage({ id, request }, [...transfer]);
    });
  }

  /** Sends `request` under an id of its own, its answer not awaited. */
  tell(request: unknown): void {
    this.#thread.postMessage({ id: this.#nextId++, request });
  }

  /** Settles the request `id` names (an answer to nothing waiting is dropped). */
  answer(id: number, outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    if (this.#waiting.size === 0) this.#thread.unref();
    if (outcome.ok) waiting.resolve(outcome.value);
    else waiting.reject(outcome.error);
  }
}
