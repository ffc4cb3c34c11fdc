import type { ResourceLimits, Transferable, Worker } from "node:worker_threads";
import { CoreError } from "../../errors/core-error.js";
import { limitHeapGrowth } from "./heap-growth.js";
import type { ThreadRequest, WatchedSetup } from "./heap-watch.js";
import type { Accepted, WorkerFailure, WorkerMessage, WorkerRequest } from "./protocol.js";
import { startThread } from "./thread-entry.js";
import { ThreadRequests } from "./thread-requests.js";

/**
 * The inventory worker's heap budget: V8's cap on the thread's old generation, in MB (decision 210).
 * Sized by measurement: three scans in a row of a generated 100,000-lease world in the real thread, heap
 * watched from inside (heap-watch.ts; inventory-worker-heap.test.ts holds the first two to this budget).
 * With V8's default cap (4,096 MB here) the heap used peaked at 731 / 1,181 / 2,086 MB, mostly garbage:
 * the most still live after a full collection was 252 / 701 / 377 MB — a rescan judges beside what the
 * last scan left (the verdict memo, the previous inventory until it is let go). Capped at 768 MB all
 * three scans finished (live 382 / 700 / 735 MB); at 512 MB the first did and the second was ended. The
 * budget is twice the smallest cap that held, for a fleet past 100,000 leases and collection on a loaded
 * machine; the re-judging of changed rows only and a streamed ledger read should lower the need, and
 * this figure with it.
 */
export const INVENTORY_WORKER_HEAP_MB = 1536;

/**
 * The inventory worker's young generation, in MB: three semi-spaces' worth, of which V8 holds two, 8 MB
 * each. A scan allocates fast enough that V8 grows them to their cap and keeps them there to its end, so
 * V8's own size for this heap (two of 16 MB) put 32 MB of mostly unused heap in every scan's peak
 * (decision 311).
 */
const INVENTORY_WORKER_YOUNG_MB = 24;

/** What the inventory worker is started with: the heap budget above. */
export const INVENTORY_WORKER_RESOURCE_LIMITS: Readonly<ResourceLimits> = {
  maxOldGenerationSizeMb: INVENTORY_WORKER_HEAP_MB,
  maxYoungGenerationSizeMb: INVENTORY_WORKER_YOUNG_MB,
};

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
 * The worker reached its heap budget and V8 ended it (`ERR_WORKER_OUT_OF_MEMORY`): every request it was
 * answering fails with this, a scan under way with a sentence of its own. By then the client has started
 * a new thread, which loads the stored inventory again.
 */
export class InventoryWorkerOverBudget extends CoreError<"inventory"> {
  override readonly name = "InventoryWorkerOverBudget";
  /** The old generation's cap the thread ran under, in MB. */
  readonly budgetMb: number;

  constructor(budgetMb: number, { scan }: { scan: boolean }) {
    const budget = `${budgetMb.toLocaleString("en-US")} MB of heap`;
    super(
      "inventory",
      "over-heap-budget",
      scan
        ? `The scan needed more memory than the inventory worker's budget (${budget}) and was stopped; the worker was started again with the inventory the store holds (the last scan saved whole), and the next scan starts afresh.`
        : `The inventory worker needed more memory than its budget (${budget}) and was stopped; it was started again with the stored inventory.`,
    );
    this.budgetMb = budgetMb;
  }
}

export interface InventoryWorkerOptions {
  /** Replaces the production budget (tests of what happens at the cap). */
  resourceLimits?: ResourceLimits;
  /** Told when the worker holds the inventory another process saved over the store (`replaced`). */
  onReplaced?: (accepted: Accepted) => void;
}

interface Thread {
  worker: Worker;
  requests: ThreadRequests;
  /** Started again after one ran out of its budget, and still loading the stored inventory. */
  reloading: boolean;
  /** Scans this thread is reading or judging (`read-sources` sent, not yet judged or forgotten). */
  scans: Set<number>;
}

/**
 * The main thread's end of the inventory worker: one long-lived thread, requests answered in order by id,
 * under a heap budget (`INVENTORY_WORKER_RESOURCE_LIMITS`). If the thread dies, every waiting request
 * fails. One that ran out of its budget is started again at once and loads the stored inventory again
 * (`load-stored`), so finding a lease and the next scan work as before; any other death leaves the next
 * request to start a new thread (the inventory it held is read again by the next scan).
 */
export class InventoryWorker {
  readonly #setup: WatchedSetup;
  readonly #onUnasked: (failure: WorkerFailure) => void;
  readonly #onReplaced: (accepted: Accepted) => void;
  readonly #limits: ResourceLimits;
  #thread: Thread | null = null;
  #exited: Promise<void> = Promise.resolve();
  #closing = false;
  /** The keys to redact, told again to every thread started after the first (a new thread knows none). */
  #redactions: Extract<WorkerRequest, { type: "redactions" }> | null = null;

  constructor(
    setup: WatchedSetup,
    onUnasked: (failure: WorkerFailure) => void,
    options: InventoryWorkerOptions = {},
  ) {
    this.#setup = setup;
    this.#onUnasked = onUnasked;
    this.#onReplaced = options.onReplaced ?? (() => undefined);
    this.#limits = options.resourceLimits ?? INVENTORY_WORKER_RESOURCE_LIMITS;
  }

  request<T>(request: ThreadRequest, transfer?: readonly Transferable[]): Promise<T> {
    if (this.#closing) return Promise.reject(new Error("the inventory worker is closed"));
    const thread = this.#started();
    if (request.type === "redactions") this.#redactions = request;
    if (request.type === "read-sources") thread.scans.add(request.scanId);
    if (request.type === "forget-scan") thread.scans.delete(request.scanId);
    const answered = thread.requests.ask<T>(request, transfer);
    if (request.type === "judge") {
      const judged = () => thread.scans.delete(request.scanId);
      answered.then(judged, judged);
    }
    return answered;
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

  #started(): Thread {
    if (this.#thread !== null) return this.#thread;
    limitHeapGrowth();
    const worker = startThread("inventory-worker", {
      workerData: this.#setup,
      resourceLimits: this.#limits,
    });
    // Set by the thread's `error`, which comes before its `exit`: V8 ended it at the heap budget.
    let overBudget = false;
    const budgetMb = this.#limits.maxOldGenerationSizeMb ?? 0;
    const scans = new Set<number>();
    // An idle thread does not keep a host alive by itself: the host's own server or window does.
    const requests = new ThreadRequests(worker, (code) =>
      overBudget
        ? new InventoryWorkerOverBudget(budgetMb, { scan: scans.size > 0 })
        : new InventoryWorkerError({
            kind: "internal",
            message: `the inventory worker stopped (exit code ${code})`,
          }),
    );
    const thread: Thread = { worker, requests, reloading: false, scans };
    // Requests are answered in order, so the keys are in place before anything this thread stores.
    if (this.#redactions !== null) requests.tell(this.#redactions);
    worker.on("message", (message: WorkerMessage) => {
      if (message.id === null) {
        if (message.ok) this.#onReplaced(message.replaced);
        else this.#onUnasked(message.failure);
      } else if (message.ok) requests.answer(message.id, { ok: true, value: message.value });
      else requests.answer(message.id, { ok: false, error: new InventoryWorkerError(message.failure) });
    });
    this.#exited = new Promise<void>((resolve) => {
      // After ThreadRequests' own `exit` listener: what was waiting has failed before a new thread starts.
      worker.once("exit", () => {
        if (this.#thread === thread) this.#thread = null;
        if (overBudget && !this.#closing) this.#restart(thread, budgetMb);
        resolve();
      });
    });
    worker.on("error", (error: Error & { code?: string }) => {
      if (error.code === "ERR_WORKER_OUT_OF_MEMORY") overBudget = true;
      else this.#onUnasked({ kind: "internal", message: error.message });
    });
    this.#thread = thread;
    return thread;
  }

  /**
   * A new thread for one V8 ended at its budget, holding the stored inventory again. A thread that ran
   * out while doing just that is not started again at once (the stored inventory itself does not fit):
   * the next request starts one, which the next scan fills.
   */
  #restart(ended: Thread, budgetMb: number): void {
    const budget = `${budgetMb.toLocaleString("en-US")} MB of heap`;
    if (ended.reloading) {
      this.#onUnasked({
        kind: "internal",
        during: "restart",
        message: `the inventory worker ran out of its budget (${budget}) again while loading the stored inventory; the next request starts it without one`,
      });
      return;
    }
    this.#onUnasked({
      kind: "internal",
      during: "restart",
      message: `the inventory worker ran out of its budget (${budget}) and was ended; it was started again and loads the stored inventory`,
    });
    const thread = this.#started();
    thread.reloading = true;
    thread.requests.ask({ type: "load-stored" } satisfies WorkerRequest).then(
      () => {
        thread.reloading = false;
      },
      (error: unknown) => {
        // Ended at its budget again: its own `exit` says so, above.
        if (error instanceof InventoryWorkerOverBudget || this.#closing) return;
        thread.reloading = false;
        this.#onUnasked({
          kind: "internal",
          message: `the stored inventory could not be loaded again: ${error instanceof Error ? error.message : String(error)}`,
        });
      },
    );
  }
}
