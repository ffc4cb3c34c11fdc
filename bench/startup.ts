// Benchmark: `npm start` with nothing configured (the demo) to the first lease rows visible in Chromium.
//   npm run bench -- startup [--runs 3]
// Chromium is started beforehand, as an operator's browser would be; the clock starts when `npm start` is
// spawned and stops when the first [data-testid=lease-row] is visible in a page opened at the printed URL.
import { type ChildProcess, spawn } from "node:child_process";
import { type Browser, chromium } from "@playwright/test";
import { ensureRenderer } from "../scripts/build-support.js";
import { CHROMIUM_ARGS, ensureChromium } from "../scripts/chromium.js";
import { median, round } from "./lib/probes.js";
import { ROOT } from "./lib/processes.js";
import type { Figure } from "./lib/report.js";

const SERVING = /Leasekeeper is serving on (http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/;

export interface StartupRun {
  /** spawn → the serving line on stdout. */
  urlPrintedMs: number;
  /** spawn → first lease row visible. */
  firstRowsMs: number;
  /** In the page (ms from navigation start): the inventory request sent and answered, the first frame with a row. */
  page: { inventoryRequestedMs: number; inventoryAnsweredMs: number; firstRowMs: number };
}

export interface StartupBenchResult {
  runs: StartupRun[];
  medianFirstRowsMs: number;
  medianUrlPrintedMs: number;
}

export async function runStartupBench(options: { runs: number }): Promise<StartupBenchResult> {
  // The renderer is built once beforehand, as `npm start` would have after the first time.
  await ensureRenderer((line) => process.stderr.write(`${line}\n`));
  const browser = await chromium.launch({
    executablePath: ensureChromium(),
    args: CHROMIUM_ARGS,
    headless: true,
  });
  const runs: StartupRun[] = [];
  try {
    // One unmeasured run warms the disk cache and tsx's transform cache, as a second `npm start` would find them.
    await startOnce(browser);
    for (let n = 0; n < options.runs; n++) runs.push(await startOnce(browser));
  } finally {
    await browser.close();
  }
  return {
    runs,
    medianFirstRowsMs: round(median(runs.map((run) => run.firstRowsMs))),
    medianUrlPrintedMs: round(median(runs.map((run) => run.urlPrintedMs))),
  };
}

async function startOnce(browser: Browser): Promise<StartupRun> {
  const started = performance.now();
  // Its own process group, so that stopping it stops tsx and everything npm started under it.
  const child = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: { ...process.env, LEASEKEEPER_NO_ELECTRON: "1", LEASEKEEPER_CONFIG: "" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  try {
    const url = await servingUrl(child);
    const urlPrintedMs = performance.now() - started;
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(url);
    // The page looks for the row every frame and notes the frame that has it. Playwright's own wait
    // polls a locator at widening intervals (500 ms apart from the first second on), and measured up to
    // that much after the row was there.
    const firstRowMs = (await (
      await page.waitForFunction(
        () => {
          const row = document.querySelector("[data-testid='lease-row']");
          if (row === null || getComputedStyle(row).visibility === "hidden") return false;
          const box = row.getBoundingClientRect();
          return box.width > 0 && box.height > 0 ? performance.now() : false;
        },
        undefined,
        { polling: "raf", timeout: 60_000 },
      )
    ).jsonValue()) as number;
    const inPage = await page.evaluate(() => {
      const entry = performance
        .getEntriesByType("resource")
        .find((candidate) => candidate.name.includes("/api/inventory")) as
        | PerformanceResourceTiming
        | undefined;
      return {
        timeOrigin: performance.timeOrigin,
        inventoryRequestedMs: entry?.startTime ?? Number.NaN,
        inventoryAnsweredMs: entry?.responseEnd ?? Number.NaN,
      };
    });
    await page.close();
    // Both clocks count from the epoch: the page's origin plus its time, less this process's at spawn.
    const firstRowsMs = inPage.timeOrigin + firstRowMs - (performance.timeOrigin + started);
    return {
      urlPrintedMs: round(urlPrintedMs),
      firstRowsMs: round(firstRowsMs),
      page: {
        inventoryRequestedMs: round(inPage.inventoryRequestedMs),
        inventoryAnsweredMs: round(inPage.inventoryAnsweredMs),
        firstRowMs: round(firstRowMs),
      },
    };
  } finally {
    await stopGroup(child);
  }
}

function servingUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`npm start printed no URL in 60 s: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = SERVING.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before printing a URL: ${output}`));
    });
  });
}

function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid!, "SIGINT");
    } catch {
      resolve();
    }
  });
}

export function startupFigures(result: StartupBenchResult): Figure[] {
  return [
    {
      bench: "startup",
      name: "npm start (demo) → first rows visible",
      value: result.medianFirstRowsMs,
      unit: "ms",
      reference: { label: "to the URL printed", value: result.medianUrlPrintedMs },
      target: { kind: "max", value: 3000, text: "< 3 s" },
      note: `median of ${result.runs.length} runs after one unmeasured warm-up (${result.runs.map((run) => Math.round(run.firstRowsMs)).join(", ")} ms); Chromium already running; browser host mode (LEASEKEEPER_NO_ELECTRON=1). In the page, from navigation: inventory asked at ${result.runs.map((run) => Math.round(run.page.inventoryRequestedMs)).join("/")} ms, answered at ${result.runs.map((run) => Math.round(run.page.inventoryAnsweredMs)).join("/")} ms, first row seen at ${result.runs.map((run) => Math.round(run.page.firstRowMs)).join("/")} ms`,
    },
  ];
}
