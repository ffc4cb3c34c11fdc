import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * Watches the event loop while something runs: a 5 ms timer that notes how late each tick fires. On a
 * shared machine a late tick has two causes, our own code holding the loop and the kernel giving the CPU
 * to someone else, so on Linux each tick also reads the main thread's own scheduler counters
 * (/proc/thread-self/schedstat: nanoseconds on a CPU, nanoseconds waiting for one). A block is then
 * measured twice: in wall time (what a user would feel on this machine now) and as the CPU time the
 * main thread spent between two ticks (what the code costs, whatever the neighbours do).
 */
export interface LoopBlock {
  /** performance.now() at which the block started (the tick that should have fired). */
  startMs: number;
  /** How late the tick fired. */
  durationMs: number;
  /** CPU time the main thread ran between the two ticks; null where the kernel does not say. */
  cpuMs: number | null;
  /** Time the main thread was ready to run but waited for a CPU. */
  waitMs: number | null;
}

export interface LoopReport {
  /** The longest block in wall time. */
  maxBlockMs: number;
  /** The longest block in main-thread CPU time (null without schedstat). */
  maxBlockCpuMs: number | null;
  /** The longest single wait for a CPU between two ticks: how noisy the machine was meanwhile. */
  maxWaitMs: number | null;
  /** The longest delay in Node's histogram (libuv's view of the same thing, wall time). */
  histogramMaxMs: number;
  blocks: LoopBlock[];
}

const TICK_MS = 5;

/** The main thread's scheduler counters, read with one pread on a descriptor opened once. */
class ThreadClock {
  readonly #fd: number | null;
  readonly #buffer = Buffer.alloc(128);

  constructor() {
    let fd: number | null = null;
    try {
      fd = openSync("/proc/thread-self/schedstat", "r");
    } catch {
      fd = null;
    }
    this.#fd = fd;
  }

  /** [ns on a CPU, ns waiting for one], or null. */
  read(): [number, number] | null {
    if (this.#fd === null) return null;
    const length = readSync(this.#fd, this.#buffer, 0, this.#buffer.length, 0);
    const [run, wait] = this.#buffer.toString("latin1", 0, length).split(" ");
    return [Number(run), Number(wait)];
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
  }
}

/** A tick this late, or this much of main's CPU since the last one, is kept as a block to name in a note. */
export const BLOCK_REPORTED_OVER_MS = 20;

export class LoopProbe {
  readonly #histogram = monitorEventLoopDelay({ resolution: 10 });
  readonly #blocks: LoopBlock[] = [];
  readonly #reportOverMs: number;
  readonly #clock = new ThreadClock();
  #timer: ReturnType<typeof setInterval> | null = null;
  #last = 0;
  #lastCounters: [number, number] | null = null;
  #max = 0;
  #maxCpu: number | null = null;
  #maxWait: number | null = null;
  /** Every tick: when it fired, and the main thread's CPU time since the previous one. */
  readonly #ticks: { at: number; cpuMs: number | null; lateMs: number }[] = [];

  constructor(reportOverMs = BLOCK_REPORTED_OVER_MS) {
    this.#reportOverMs = reportOverMs;
  }

  start(): this {
    this.#histogram.enable();
    this.#last = performance.now();
    this.#lastCounters = this.#clock.read();
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
    return this;
  }

  #tick(): void {
    const now = performance.now();
    const counters = this.#clock.read();
    const late = now - this.#last - TICK_MS;
    let cpuMs: number | null = null;
    let waitMs: number | null = null;
    if (counters !== null && this.#lastCounters !== null) {
      cpuMs = (counters[0] - this.#lastCounters[0]) / 1e6;
      waitMs = (counters[1] - this.#lastCounters[1]) / 1e6;
      this.#maxCpu = Math.max(this.#maxCpu ?? 0, cpuMs);
      this.#maxWait = Math.max(this.#maxWait ?? 0, waitMs);
    }
    if (late > this.#max) this.#max = late;
    this.#ticks.push({ at: now, cpuMs, lateMs: late });
    if (late > this.#reportOverMs || (cpuMs ?? 0) > this.#reportOverMs) {
      this.#blocks.push({ startMs: this.#last + TICK_MS, durationMs: late, cpuMs, waitMs });
    }
    this.#last = now;
    this.#lastCounters = counters;
  }

  /**
   * Over the ticks that fired inside [from, to] (performance.now() ms): the main thread's CPU time in all,
   * and the most it used between two ticks (the longest block), in CPU and in wall time.
   */
  window(
    from: number,
    to: number,
  ): { cpuMs: number | null; maxBlockCpuMs: number | null; maxBlockMs: number } {
    let cpu: number | null = null;
    let maxCpu: number | null = null;
    let maxLate = 0;
    for (const tick of this.#ticks) {
      if (tick.at < from || tick.at > to + TICK_MS + 1) continue;
      if (tick.cpuMs !== null) {
        cpu = (cpu ?? 0) + tick.cpuMs;
        maxCpu = Math.max(maxCpu ?? 0, tick.cpuMs);
      }
      maxLate = Math.max(maxLate, tick.lateMs);
    }
    const r = (value: number | null) => (value === null ? null : round(value));
    return { cpuMs: r(cpu), maxBlockCpuMs: r(maxCpu), maxBlockMs: round(maxLate) };
  }

  stop(): LoopReport {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    // One last look: a block that ran up to stop() has not been seen by a tick yet.
    this.#tick();
    this.#clock.close();
    this.#histogram.disable();
    const r = (value: number | null) => (value === null ? null : round(value));
    return {
      maxBlockMs: round(Math.max(0, this.#max)),
      maxBlockCpuMs: r(this.#maxCpu),
      maxWaitMs: r(this.#maxWait),
      histogramMaxMs: round(this.#histogram.max / 1e6),
      blocks: this.#blocks.map((block) => ({
        startMs: round(block.startMs),
        durationMs: round(block.durationMs),
        cpuMs: r(block.cpuMs),
        waitMs: r(block.waitMs),
      })),
    };
  }
}

/** The high-water marks of this process's memory while it runs: heap used and RSS, sampled every 10 ms. */
export class MemoryProbe {
  #timer: ReturnType<typeof setInterval> | null = null;
  #heapUsed = 0;
  #rss = 0;

  start(): this {
    const sample = () => {
      const usage = process.memoryUsage();
      if (usage.heapUsed > this.#heapUsed) this.#heapUsed = usage.heapUsed;
      if (usage.rss > this.#rss) this.#rss = usage.rss;
    };
    sample();
    this.#timer = setInterval(sample, 10);
    return this;
  }

  stop(): { heapUsedMaxMB: number; rssMaxMB: number; maxRssMB: number } {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    const usage = process.memoryUsage();
    return {
      heapUsedMaxMB: round(Math.max(this.#heapUsed, usage.heapUsed) / 1024 ** 2),
      rssMaxMB: round(Math.max(this.#rss, usage.rss) / 1024 ** 2),
      maxRssMB: peakRssMB(),
    };
  }
}

/**
 * The kernel's high-water mark of this process's resident memory since it started (VmHWM, Linux), in
 * MB. Not `process.resourceUsage().maxRSS`: getrusage keeps the largest of a process's memories across
 * fork and exec, so a child spawned by a runner holding 700 MB reports 700 MB before it has done
 * anything. Elsewhere, where there is no /proc, that figure is all there is.
 */
export function peakRssMB(): number {
  try {
    const kilobytes = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kilobytes !== undefined) return round(Number(kilobytes) / 1024);
  } catch {
    // No /proc: not Linux.
  }
  return round(process.resourceUsage().maxRSS / 1024);
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** CPU time (user + system, this process and its threads) spent while `run` ran, in ms. */
export async function cpuTimeOf<T>(
  run: () => Promise<T> | T,
): Promise<{ value: T; cpuMs: number; wallMs: number }> {
  const wall = performance.now();
  const start = process.cpuUsage();
  const value = await run();
  const used = process.cpuUsage(start);
  return { value, cpuMs: round((used.user + used.system) / 1000), wallMs: round(performance.now() - wall) };
}
