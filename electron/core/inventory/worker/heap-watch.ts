import { GCProfiler, getHeapSpaceStatistics, getHeapStatistics, type HeapSpaceStatistics } from "node:v8";
import type { WorkerRequest, WorkerSetup } from "./protocol.js";

/**
 * The inventory thread's own heap, for the heap-budget test and measurements (decision 210): asked of the
 * thread's entry, never of the keeper. A host never watches; `heap` then reports only the heap now.
 */

/** What a thread that watches its heap is started with (`watchHeap`), beside the keeper's setup. */
export interface WatchedSetup extends WorkerSetup {
  /** Profile every collection from the thread's start, so that `heap` can report high-water marks. */
  watchHeap?: boolean;
}

/** Any request main sends the inventory thread: the keeper's, or `heap`, answered by the entry itself. */
export type ThreadRequest = WorkerRequest | { type: "heap" };

/** The inventory thread's heap, in MB. */
export interface HeapReport {
  /** V8's limit for this thread's heap (the old generation's cap plus the young generation). */
  limitMb: number;
  usedMb: number;
  /** What V8 holds for the heap (committed), used or not. */
  totalMb: number;
  /**
   * With `watchHeap`, since the thread started or the last `heap`: the most the heap used, just before
   * any collection (between collections it only grows); null without it.
   */
  usedHighWaterMb: number | null;
  /** With `watchHeap`: the most V8 held for the heap (committed) at any collection; null without it. */
  totalHighWaterMb: number | null;
  /**
   * With `watchHeap`: the most the heap still used after a full collection — what was live, the figure
   * the old generation's cap must hold; null without it.
   */
  liveHighWaterMb: number | null;
  /**
   * With `watchHeap`: the most V8 held for the young generation's two semi-spaces at any collection,
   * the part of the heap the thread's `maxYoungGenerationSizeMb` bounds; null without it.
   */
  youngHighWaterMb: number | null;
}

const MB = 1024 * 1024;
/** V8's name for the young generation's semi-spaces (its large objects are a space of their own). */
const NEW_SPACE = "new_space";
const mb = (bytes: number) => Math.round(bytes / MB);

/** The thread's heap, with high-water marks when `watched` (each report starts the next period). */
export class HeapWatch {
  readonly #profiler: GCProfiler | null;

  constructor(watched: boolean) {
    this.#profiler = watched ? new GCProfiler() : null;
    this.#profiler?.start();
  }

  report(): HeapReport {
    const now = getHeapStatistics();
    const report: HeapReport = {
      limitMb: mb(now.heap_size_limit),
      usedMb: mb(now.used_heap_size),
      totalMb: mb(now.total_heap_size),
      usedHighWaterMb: null,
      totalHighWaterMb: null,
      liveHighWaterMb: null,
      youngHighWaterMb: null,
    };
    const profiler = this.#profiler;
    if (profiler === null) return report;
    let used = now.used_heap_size;
    let total = now.total_heap_size;
    let live = 0;
    let young = getHeapSpaceStatistics().find((space) => space.space_name === NEW_SPACE)?.space_size ?? 0;
    for (const { gcType, beforeGC, afterGC } of profiler.stop().statistics) {
      used = Math.max(used, beforeGC.heapStatistics.usedHeapSize);
      total = Math.max(total, beforeGC.heapStatistics.totalHeapSize, afterGC.heapStatistics.totalHeapSize);
      // V8 grows or shrinks the semi-spaces only as it collects: what each collection left is each size held.
      young = Math.max(young, youngSize(afterGC.heapSpaceStatistics));
      if (gcType === "MarkSweepCompact") live = Math.max(live, afterGC.heapStatistics.usedHeapSize);
    }
    profiler.start();
    return {
      ...report,
      usedHighWaterMb: mb(used),
      totalHighWaterMb: mb(total),
      liveHighWaterMb: mb(live),
      youngHighWaterMb: mb(young),
    };
  }
}

/** What V8 holds for the new space (both semi-spaces) in a collection's listing of its spaces. */
function youngSize(spaces: readonly HeapSpaceStatistics[]): number {
  return spaces.find(({ spaceName }) => spaceName === NEW_SPACE)?.spaceSize ?? 0;
}
