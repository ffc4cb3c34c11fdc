// Benchmark: the lease table in Chromium through the browser host, with a generated world of 20,000
// leases (simulator in its own process, the host in this one). Every time is taken inside the page on the
// performance.now() clock, from the input event's own timestamp to just after the frame that showed the
// result (a message posted from requestAnimationFrame is delivered after that frame is painted).
//   npm run bench -- ui [--size 20000]
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, chromium, type Page } from "@playwright/test";
import { launchBrowserHost, type RunningBrowserHost } from "../electron/core/http-host/launch.js";
import { ensureRenderer, RENDERER_DIR } from "../scripts/build-support.js";
import { CHROMIUM_ARGS, ensureChromium } from "../scripts/chromium.js";
import { generateDemoWorld, writeDemoWorld } from "../simulator/index.js";
import { countReactRenders, type ReactRenderCounterOptions } from "../test/support/react-render-counter.js";
import { median, percentile, round } from "./lib/probes.js";
import { startSimulatorProcess } from "./lib/processes.js";
import type { Figure } from "./lib/report.js";
import { type MainThreadTrace, startTrace, stopTrace } from "./lib/trace.js";
import { type Interaction, installPageProbe } from "./ui-page.js";

export interface UiBenchOptions {
  size: number;
  /** A built renderer other than dist/renderer (to compare a change). */
  rendererDir?: string;
  keystrokes?: number;
  scrollFrames?: number;
}

export interface UiBenchResult {
  size: number;
  rows: number;
  /** Inventory response fully received (resource timing responseEnd) → first row painted. */
  paint: {
    responseEndMs: number;
    firstRowDomMs: number;
    firstRowPaintedMs: number;
    responseToPaintMs: number;
    /** Main-thread CPU time in that window, from the trace. */
    responseToPaintCpuMs: number;
  };
  payload: { bytes: number; bytesPerRow: number; transferBytes: number };
  search: LatencySeries;
  filter: LatencySeries;
  /** The same measurement on a plain input with no table behind it: what one keystroke to paint costs here. */
  plainKeystroke: LatencySeries;
  scroll: {
    frames: number;
    stepPx: number;
    wall: { p50: number; p95: number; max: number };
    cpu: { p50: number; p95: number; max: number };
    idle: { p50: number; p95: number };
  };
  heap: { usedMB: number; usedAfterGcMB: number; totalMB: number };
  /** React renders during a refresh whose inventory did not change, and during one filter click (sanity). */
  identicalRefresh: {
    commits: number;
    leaseRowRenders: number;
    leaseTableRenders: number;
    inventoryRequests: number;
  };
  filterClickRenders: { commits: number; leaseRowRenders: number; leaseTableRenders: number };
}

export interface LatencySeries {
  count: number;
  /** Wall time: input event → after the frame that showed the result. */
  median: number;
  p95: number;
  max: number;
  /** Main-thread CPU time inside the same windows, from the trace. */
  cpuMedian: number;
  cpuP95: number;
  samples: number[];
  cpuSamples: number[];
}

function series(interactions: readonly Interaction[], trace: MainThreadTrace): LatencySeries {
  const samples = interactions.map((interaction) => interaction.latencyMs);
  const cpuSamples = interactions.map((interaction) =>
    trace.cpuBetween(interaction.startedAt, interaction.paintedAt),
  );
  return {
    count: samples.length,
    median: round(median(samples)),
    p95: round(percentile(samples, 95)),
    max: round(Math.max(...samples)),
    cpuMedian: round(median(cpuSamples)),
    cpuP95: round(percentile(cpuSamples, 95)),
    samples: samples.map((value) => round(value)),
    cpuSamples: cpuSamples.map((value) => round(value)),
  };
}

/** A generated world behind a browser host: the simulator in its own process, the host in this one. */
export interface UiWorld {
  running: RunningBrowserHost;
  close(): Promise<void>;
}

export async function startUiWorld(size: number, rendererDir: string = RENDERER_DIR): Promise<UiWorld> {
  if (rendererDir === RENDERER_DIR) await ensureRenderer((line) => process.stderr.write(`${line}\n`));
  const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-bench-ui-"));
  const seed = "leasekeeper-bench";
  const accounts = 5;
  const draft = generateDemoWorld({ size, seed, environments: 50, accounts });
  const sim = await startSimulatorProcess({ fleet: draft.fleet, dir, aliasPorts: 1, rateLimitPerMinute: 0 });
  const cleanup = async () => {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const world = generateDemoWorld({
      size,
      seed,
      environments: 50,
      accounts,
      apiUrl: sim.url,
      legacyApiUrl: sim.aliasUrls[0]!,
    });
    await writeDemoWorld(dir, world);
    const configPath = path.join(dir, "leasekeeper.config.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    // A high budget so the host's scans are quick; the UI is what is measured here.
    await writeFile(configPath, JSON.stringify({ ...config, rateLimitPerMinute: 6000 }));
    const running = await launchBrowserHost({
      configPath,
      version: "bench",
      rendererDir,
      env: { ...process.env, ...world.keys },
      print: () => undefined,
    });
    // The first scan finishes before the page opens, so the page measures the UI, not the scan.
    await running.app.inventory.ensure();
    return {
      running,
      async close() {
        await running.close();
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Chromium as the project runs it (system binary, CHROMIUM_ARGS), with the page probe installed. */
export async function openProbedPage(
  world: UiWorld,
  options: { traceLoad?: boolean } = {},
): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: ensureChromium(),
    args: CHROMIUM_ARGS,
    headless: true,
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript({ content: `var __name = (f) => f;\n(${installPageProbe.toString()})();` });
  await page.addInitScript({
    content: `var __name = (f) => f;\n(${countReactRenders.toString()})(${JSON.stringify(RENDERS_COUNTED)});`,
  });
  if (options.traceLoad) await startTrace(browser, page);
  await page.goto(world.running.host.url);
  await page.waitForFunction(
    () =>
      (window as unknown as { __lk: { firstRowPaintedAt: number | null } }).__lk.firstRowPaintedAt !== null,
    null,
    { timeout: 120_000 },
  );
  return { browser, page };
}

export async function runUiBench(options: UiBenchOptions): Promise<UiBenchResult> {
  const size = options.size;
  const keystrokes = options.keystrokes ?? 50;
  const scrollFrames = options.scrollFrames ?? 180;
  const world = await startUiWorld(size, options.rendererDir);
  let browser: Browser | null = null;
  try {
    const opened = await openProbedPage(world, { traceLoad: true });
    browser = opened.browser;
    const page = opened.page;
    const loadTrace = await stopTrace(browser, ANCHOR, await anchor(page));

    const paint = await page.evaluate(() => {
      const lk = (window as unknown as { __lk: { firstRowDomAt: number; firstRowPaintedAt: number } }).__lk;
      const entry = performance
        .getEntriesByType("resource")
        .find((candidate) => candidate.name.includes("/api/inventory")) as
        | PerformanceResourceTiming
        | undefined;
      return {
        responseEndMs: entry?.responseEnd ?? Number.NaN,
        transferSize: entry?.transferSize ?? 0,
        firstRowDomMs: lk.firstRowDomAt,
        firstRowPaintedMs: lk.firstRowPaintedAt,
      };
    });
    const rows = await page.locator("[data-testid='visible-count']").getAttribute("data-count");

    // The payload as the host sends it, byte for byte (no compression on loopback).
    const bytes = await payloadBytes(world.running);

    // Let the page settle (fonts, the event stream) before timing interactions.
    await page.waitForTimeout(1000);
    const heap = await heapUsage(page);

    const plainKeystroke = await traced(browser, page, () => measurePlainKeystrokes(page, 20));
    const search = await traced(browser, page, () => measureSearch(page, keystrokes));
    const filter = await traced(browser, page, () => measureFilter(page, keystrokes));

    // Renders for one filter click (a sanity check that the counter sees renders when there are some).
    await setCounting(page, true);
    await clickAndWait(page, "filter-headline-stale", "true");
    const filterClickRenders = await readRenders(page);
    await clickAndWait(page, "filter-headline-stale", "false");
    await setCounting(page, false);

    const scroll = await measureScroll(browser, page, scrollFrames);
    const identicalRefresh = await measureIdenticalRefresh(page);

    return {
      size,
      rows: Number(rows),
      paint: {
        responseEndMs: round(paint.responseEndMs),
        firstRowDomMs: round(paint.firstRowDomMs),
        firstRowPaintedMs: round(paint.firstRowPaintedMs),
        responseToPaintMs: round(paint.firstRowPaintedMs - paint.responseEndMs),
        responseToPaintCpuMs: round(loadTrace.cpuBetween(paint.responseEndMs, paint.firstRowPaintedMs)),
      },
      payload: { bytes, bytesPerRow: round(bytes / size), transferBytes: paint.transferSize },
      search,
      filter,
      plainKeystroke,
      scroll,
      heap,
      identicalRefresh,
      filterClickRenders,
    };
  } finally {
    await browser?.close();
    await world.close();
  }
}

/** The rows' and the table's renders, counted only while a figure asks for them. */
const RENDERS_COUNTED: ReactRenderCounterOptions = {
  testIds: ["lease-row", "lease-table"],
  countingFromTheStart: false,
};

const ANCHOR = "lk-bench-anchor";

/** A mark the trace will carry, and its page time: how page ms map onto trace time. */
function anchor(page: Page): Promise<number> {
  return page.evaluate((name) => performance.mark(name).startTime, ANCHOR);
}

async function traced(
  browser: Browser,
  page: Page,
  run: () => Promise<Interaction[]>,
): Promise<LatencySeries> {
  await startTrace(browser, page);
  const interactions = await run();
  const trace = await stopTrace(browser, ANCHOR, await anchor(page));
  return series(interactions, trace);
}

async function payloadBytes(running: RunningBrowserHost): Promise<number> {
  const response = await fetch(`${running.host.origin}/api/inventory:get`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Leasekeeper-Token": running.host.token },
    body: "{}",
  });
  return (await response.arrayBuffer()).byteLength;
}

async function heapUsage(page: Page): Promise<UiBenchResult["heap"]> {
  const cdp = await page.context().newCDPSession(page);
  const before = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number; totalSize: number };
  await cdp.send("HeapProfiler.collectGarbage");
  const after = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number; totalSize: number };
  await cdp.detach();
  const mb = (bytes: number) => round(bytes / 1024 ** 2);
  return { usedMB: mb(before.usedSize), usedAfterGcMB: mb(after.usedSize), totalMB: mb(after.totalSize) };
}

type Lk = {
  arm(until: string, expected: string): void;
  result(): Promise<Interaction>;
  frames(count: number, step: number): Promise<number[]>;
};

async function timed(
  page: Page,
  until: string,
  expected: string,
  act: () => Promise<void>,
): Promise<Interaction> {
  await page.evaluate(([u, e]) => (window as unknown as { __lk: Lk }).__lk.arm(u!, e!), [until, expected]);
  await act();
  return page.evaluate(() => (window as unknown as { __lk: Lk }).__lk.result());
}

/** Queries typed a key at a time and erased again; each keystroke re-filters 20,000 rows. */
const QUERIES = ["acme-prod", "sb-01m6", "globex", "paused", "hooli-dev"];

async function measureSearch(page: Page, keystrokes: number): Promise<Interaction[]> {
  const search = page.locator("[data-testid='search']");
  await search.click();
  await search.fill("");
  const samples: Interaction[] = [];
  let value = "";
  for (let q = 0; samples.length < keystrokes; q++) {
    const query = QUERIES[q % QUERIES.length]!;
    for (const char of query) {
      if (samples.length >= keystrokes) break;
      value += char;
      samples.push(
        await timed(page, "search", value, () => page.keyboard.press(char === "-" ? "Minus" : char)),
      );
    }
    while (value.length > 0 && samples.length < keystrokes) {
      value = value.slice(0, -1);
      samples.push(await timed(page, "search", value, () => page.keyboard.press("Backspace")));
    }
  }
  await search.fill("");
  await page.waitForTimeout(200);
  return samples;
}

const CHIPS = [
  "filter-headline-stale",
  "filter-headline-leaking",
  "filter-headline-foreign",
  "filter-headline-ok",
  "filter-headline-unknown",
];

async function clickAndWait(page: Page, testId: string, pressed: "true" | "false"): Promise<Interaction> {
  const chip = page.locator(`[data-testid='${testId}']`);
  const box = await chip.boundingBox();
  if (box === null) throw new Error(`${testId} is not on screen`);
  return timed(page, "pressed", `${testId}=${pressed}`, () =>
    page.mouse.click(box.x + box.width / 2, box.y + box.height / 2),
  );
}

async function measureFilter(page: Page, clicks: number): Promise<Interaction[]> {
  const samples: Interaction[] = [];
  for (let n = 0; samples.length < clicks; n++) {
    const chip = CHIPS[n % CHIPS.length]!;
    samples.push(await clickAndWait(page, chip, "true"));
    if (samples.length < clicks) samples.push(await clickAndWait(page, chip, "false"));
  }
  return samples;
}

async function measurePlainKeystrokes(page: Page, count: number): Promise<Interaction[]> {
  await page.evaluate(() => {
    const input = document.createElement("input");
    input.id = "bench-plain-input";
    input.style.cssText = "position:fixed;left:0;top:0;width:120px;z-index:99999";
    document.body.append(input);
    input.focus();
  });
  const samples: Interaction[] = [];
  let value = "";
  for (let n = 0; n < count; n++) {
    value += "x";
    samples.push(await timed(page, "typed", value, () => page.keyboard.press("x")));
  }
  await page.evaluate(() => document.querySelector("#bench-plain-input")?.remove());
  return samples;
}

/** Rows a frame the scripted scroll moves: 102 px a frame, about 6,000 px/s, a brisk fling; new rows every frame. */
const SCROLL_ROWS_PER_FRAME = 3;

async function measureScroll(browser: Browser, page: Page, frames: number): Promise<UiBenchResult["scroll"]> {
  const frameTimes = (stamps: number[]) => stamps.slice(1).map((at, n) => at - stamps[n]!);
  const idle = frameTimes(
    await page.evaluate((n) => (window as unknown as { __lk: Lk }).__lk.frames(n, 0), 120),
  );
  const stepPx = SCROLL_ROWS_PER_FRAME * 34;
  await startTrace(browser, page);
  const stamps = await page.evaluate(
    ([n, step]) => (window as unknown as { __lk: Lk }).__lk.frames(n!, step!),
    [frames, stepPx],
  );
  const trace = await stopTrace(browser, ANCHOR, await anchor(page));
  const wall = frameTimes(stamps);
  const cpu = stamps.slice(1).map((at, n) => trace.cpuBetween(stamps[n]!, at));
  const stats = (values: number[]) => ({
    p50: round(median(values)),
    p95: round(percentile(values, 95)),
    max: round(Math.max(...values)),
  });
  return {
    frames: wall.length,
    stepPx,
    wall: stats(wall),
    cpu: stats(cpu),
    idle: { p50: round(median(idle)), p95: round(percentile(idle, 95)) },
  };
}

async function setCounting(page: Page, on: boolean): Promise<void> {
  await page.evaluate((value) => {
    const counts = window.reactRenders!;
    counts.commits = 0;
    for (const testId of Object.keys(counts.byTestId)) counts.byTestId[testId] = 0;
    counts.counting = value;
  }, on);
}

async function readRenders(page: Page) {
  const renders = await page.evaluate(() => structuredClone(window.reactRenders!));
  return {
    commits: renders.commits,
    leaseRowRenders: renders.byTestId["lease-row"] ?? 0,
    leaseTableRenders: renders.byTestId["lease-table"] ?? 0,
  };
}

/** Refresh with nothing changed at the provider: the table must not re-render its rows. */
async function measureIdenticalRefresh(page: Page): Promise<UiBenchResult["identicalRefresh"]> {
  await page.evaluate(() => (window as unknown as { __lk: Lk }).__lk.frames(10, 0));
  const before = await inventoryRequests(page);
  await setCounting(page, true);
  await page.locator("[data-testid='refresh']").click();
  await page.waitForFunction(
    (count) =>
      performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/inventory")).length >
      count,
    before,
    { timeout: 120_000 },
  );
  // The response's own commits, and any follow-up ones (status bar, events).
  await page.waitForFunction(
    () => !(document.querySelector("[data-testid='refresh']") as HTMLButtonElement | null)?.disabled,
    null,
    { timeout: 120_000 },
  );
  await page.waitForTimeout(1500);
  const renders = await readRenders(page);
  await setCounting(page, false);
  return { ...renders, inventoryRequests: (await inventoryRequests(page)) - before };
}

function inventoryRequests(page: Page): Promise<number> {
  return page.evaluate(
    () => performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/inventory")).length,
  );
}

export function uiFigures(result: UiBenchResult): Figure[] {
  const bench = `ui ${result.size.toLocaleString("en-US")}`;
  // At 100,000 rows the table may take longer to first paint; typing and scrolling keep their targets.
  const paintMs = result.size >= 100_000 ? 500 : 300;
  const { search, filter, plainKeystroke: plain, scroll } = result;
  const medians = (series: LatencySeries) =>
    `median ${series.median} ms wall / ${series.cpuMedian} ms CPU; max ${series.max} ms wall`;
  return [
    {
      bench,
      name: "inventory response → rows painted (wall)",
      value: result.paint.responseToPaintMs,
      unit: "ms",
      reference: { label: "of it main-thread CPU", value: result.paint.responseToPaintCpuMs },
      target: { kind: "max", value: paintMs, text: `≤ ${paintMs} ms` },
      note: "resource-timing responseEnd of inventory:get → just after the frame that painted the first [data-testid=lease-row]; CPU is the page main thread's thread time in that window (Chromium trace)",
    },
    {
      bench,
      name: "inventory response → rows painted (CPU)",
      value: result.paint.responseToPaintCpuMs,
      unit: "ms",
      reference: null,
      target: { kind: "max", value: paintMs, text: `≤ ${paintMs} ms` },
    },
    {
      bench,
      name: "search keystroke → paint p95 (wall)",
      value: search.p95,
      unit: "ms",
      reference: { label: "plain <input> p95", value: plain.p95 },
      target: { kind: "max", value: 50, text: "< 50 ms" },
      note: `${search.count} keystrokes into the search box over ${result.size.toLocaleString("en-US")} rows, from the keydown's timestamp to just after the frame that shows the filtered rows; ${medians(search)}. The plain <input> is the same measurement with nothing behind it: ${medians(plain)}`,
    },
    {
      bench,
      name: "search keystroke → paint p95 (CPU)",
      value: search.cpuP95,
      unit: "ms",
      reference: { label: "plain <input> p95", value: plain.cpuP95 },
      target: { kind: "max", value: 50, text: "< 50 ms" },
    },
    {
      bench,
      name: "filter chip → paint p95 (wall)",
      value: filter.p95,
      unit: "ms",
      reference: { label: "plain <input> p95", value: plain.p95 },
      target: { kind: "max", value: 50, text: "< 50 ms" },
      note: `${filter.count} clicks on the headline chips, on and off; ${medians(filter)}`,
    },
    {
      bench,
      name: "filter chip → paint p95 (CPU)",
      value: filter.cpuP95,
      unit: "ms",
      reference: { label: "plain <input> p95", value: plain.cpuP95 },
      target: { kind: "max", value: 50, text: "< 50 ms" },
    },
    {
      bench,
      name: "scroll frame time p95 (wall)",
      value: scroll.wall.p95,
      unit: "ms",
      reference: { label: "idle page p95", value: scroll.idle.p95 },
      target: { kind: "max", value: 20, text: "< 20 ms" },
      note: `${scroll.frames} frames scrolling ${scroll.stepPx} px (${scroll.stepPx / 34} rows) a frame; wall p50 ${scroll.wall.p50} ms, max ${scroll.wall.max} ms; main-thread CPU per frame p50 ${scroll.cpu.p50} ms, max ${scroll.cpu.max} ms`,
    },
    {
      bench,
      name: "scroll frame p95 (CPU)",
      value: scroll.cpu.p95,
      unit: "ms",
      reference: null,
      target: { kind: "max", value: 20, text: "< 20 ms" },
    },
    {
      bench,
      name: "JS heap after load",
      value: result.heap.usedMB,
      unit: "MB",
      reference: { label: "after a forced GC", value: result.heap.usedAfterGcMB },
      target: { kind: "max", value: 150, text: "< 150 MB" },
    },
    {
      bench,
      name: "inventory payload",
      value: result.payload.bytesPerRow,
      unit: "B/row",
      reference: null,
      target: { kind: "max", value: 250, text: "< 250 B/row" },
      note: `${(result.payload.bytes / 1024 ** 2).toFixed(2)} MB for ${result.size.toLocaleString("en-US")} rows, as the host sends it`,
    },
    {
      bench,
      name: "row renders on an unchanged refresh",
      value: result.identicalRefresh.leaseRowRenders,
      unit: "count",
      reference: {
        label: "rows rendered by one filter click",
        value: result.filterClickRenders.leaseRowRenders,
      },
      target: { kind: "equal", value: 0, text: "0" },
      note: `React commits counted through the DevTools hook; the table component itself rendered ${result.identicalRefresh.leaseTableRenders} time(s), the refresh fetched the inventory ${result.identicalRefresh.inventoryRequests} time(s)`,
    },
  ];
}
