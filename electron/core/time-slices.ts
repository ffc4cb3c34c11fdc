import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Long pure computations on the main side (parsing a 20,000-row ledger, classifying its rows) are written
 * as generators that pause every few hundred items; `runInSlices` runs one in slices of about `sliceMs`
 * with a turn of the event loop between them, so IPC, the browser host's HTTP and job progress are never
 * kept waiting for the whole computation. The result is the one the generator returns; only the schedule
 * differs from running it to the end at once (`runToEnd`).
 */
export const DEFAULT_SLICE_MS = 8;

export interface SliceStats {
  /** From start to end, the turns of the event loop included. */
  wallMs: number;
  /** CPU time of the process during the slices only. */
  cpuMs: number;
  slices: number;
  /** The longest slice in wall time: the longest the event loop waited. */
  longestSliceMs: number;
  /** The most CPU time one slice used (on a busy machine a slice's wall time includes waiting for a CPU). */
  longestSliceCpuMs: number;
}

export async function runInSlices<T>(
  steps: Generator<unknown, T, void>,
  options: { sliceMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<{ value: T; stats: SliceStats }> {
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  const started = performance.now();
  const stats: SliceStats = { wallMs: 0, cpuMs: 0, slices: 0, longestSliceMs: 0, longestSliceCpuMs: 0 };
  for (;;) {
    options.signal?.throwIfAborted();
    const sliceStart = performance.now();
    const cpuStart = process.cpuUsage();
    let step = steps.next();
    while (!step.done && performance.now() - sliceStart < sliceMs) step = steps.next();
    const cpu = process.cpuUsage(cpuStart);
    const sliceCpu = (cpu.user + cpu.system) / 1000;
    stats.slices += 1;
    stats.cpuMs += sliceCpu;
    stats.longestSliceMs = Math.max(stats.longestSliceMs, performance.now() - sliceStart);
    stats.longestSliceCpuMs = Math.max(stats.longestSliceCpuMs, sliceCpu);
    if (step.done) {
      stats.wallMs = performance.now() - started;
      return { value: step.value, stats };
    }
    await nextTurn();
  }
}

/** The same computation run to its end at once. */
export function runToEnd<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
