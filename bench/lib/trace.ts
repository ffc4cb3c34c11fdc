import type { Browser, Page } from "@playwright/test";

/**
 * CPU time of the page's main thread, from a Chromium trace. On a shared machine a frame or a keystroke
 * measured in wall time includes however long the renderer waited for a CPU; the trace's thread time
 * (`tdur` of each top-level task) is what the page's own work cost. Page times (performance.now()) are
 * mapped onto trace time through a performance.mark the page makes (`anchor`).
 */

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: Record<string, unknown>;
}

export const TRACE_CATEGORIES = [
  "toplevel",
  "blink.user_timing",
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
];

export async function startTrace(browser: Browser, page: Page): Promise<void> {
  await browser.startTracing(page, { categories: TRACE_CATEGORIES });
}

export interface MainThreadTrace {
  /** Main-thread CPU ms of the top-level tasks inside [from, to] (page ms), partial tasks pro rata. */
  cpuBetween(from: number, to: number): number;
  /** Wall ms the main thread was busy with top-level tasks inside [from, to]. */
  busyBetween(from: number, to: number): number;
}

/** Stops tracing and indexes the renderer main thread that made the `anchor` mark (at `anchorAt`, page ms). */
export async function stopTrace(
  browser: Browser,
  anchor: string,
  anchorAt: number,
): Promise<MainThreadTrace> {
  const buffer = await browser.stopTracing();
  const parsed = JSON.parse(buffer.toString("utf8")) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const mark = events.find((event) => event.name === anchor && event.cat.includes("blink.user_timing"));
  if (!mark) throw new Error(`the trace has no ${anchor} mark`);
  // The mark's thread is the page's main thread; the offset maps page ms onto trace µs.
  const mainThreads = new Set(
    events
      .filter(
        (event) =>
          event.ph === "M" &&
          event.name === "thread_name" &&
          event.pid === mark.pid &&
          event.args?.name === "CrRendererMain",
      )
      .map((event) => event.tid),
  );
  const onMain = (event: TraceEvent) =>
    event.pid === mark.pid && (mainThreads.size === 0 || mainThreads.has(event.tid)) && event.ph === "X";
  // Newer Chromium wraps each "RunTask" in a "ThreadControllerImpl::RunTask"; count one of the two.
  const taskName = events.some((event) => onMain(event) && event.name === "ThreadControllerImpl::RunTask")
    ? "ThreadControllerImpl::RunTask"
    : "RunTask";
  const tasks = events
    .filter((event) => onMain(event) && event.name === taskName && event.dur !== undefined)
    .map((event) => ({ start: event.ts, end: event.ts + event.dur!, cpu: event.tdur ?? event.dur! }))
    .sort((a, b) => a.start - b.start);
  const offsetUs = mark.ts - anchorAt * 1000;
  const overlap = (
    from: number,
    to: number,
    pick: (task: { start: number; end: number; cpu: number }, share: number) => number,
  ) => {
    const fromUs = from * 1000 + offsetUs;
    const toUs = to * 1000 + offsetUs;
    let total = 0;
    for (const task of tasks) {
      if (task.end <= fromUs) continue;
      if (task.start >= toUs) break;
      const length = task.end - task.start;
      const covered = Math.min(task.end, toUs) - Math.max(task.start, fromUs);
      total += pick(task, length > 0 ? covered / length : 1);
    }
    return total / 1000;
  };
  return {
    cpuBetween: (from, to) => overlap(from, to, (task, share) => task.cpu * share),
    busyBetween: (from, to) => overlap(from, to, (task, share) => (task.end - task.start) * share),
  };
}
