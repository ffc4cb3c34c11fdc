// `npm run bench` runs every benchmark and prints one table; `npm run bench -- <name> [options]` runs one.
//
//   npm run bench                                        everything → bench/results/latest.{json,md}
//   npm run bench -- inventory --size 10000 [--budget 300] [--fast-budget 6000] [--baseline-sample 50]
//   npm run bench -- inventory --source paperclip-db --size 100000 [--budget 300]
//   npm run bench -- inventory --size 1000000 [--source paperclip-db]   (above 100,000: the scale bench)
//   npm run bench -- scale --size 100000 --size 1000000 [--source ledger|paperclip-db] [--fast-budget 6000]
//                                                        cold scan, rescan with 1% changed, startup
//   npm run bench -- destroy --count 1000 --rate-limit 6000
//   npm run bench -- ui [--size 20000]
//   npm run bench -- startup [--runs 3]
//   npm run bench -- bundle
//
// A single benchmark writes bench/results/<name>.{json,md} (with `--source`, <name>-<source>) so the full
// run's `latest` stays whole.
// Figures are measured, never asserted: targets are printed beside them (see docs/performance.md).
import path from "node:path";
import { parseArgs } from "node:util";
import { bundleFigures, runBundleBench } from "./bundle.js";
import { destroyFigures, runDestroy } from "./destroy-figures.js";
import { inventoryFigures, runInventoryBench } from "./inventory.js";
import { runScaleBench, type ScaleSource, scaleFigures } from "./inventory-scale.js";
import { runSourceComparison, sourceComparisonFigures } from "./inventory-sources.js";
import { ROOT } from "./lib/processes.js";
import { type BenchReport, type Figure, machine, renderText, verdictOf, writeReport } from "./lib/report.js";
import { runStartupBench, startupFigures } from "./startup.js";
import { runUiBench, uiFigures } from "./ui.js";

const BENCHES = ["inventory", "scale", "destroy", "ui", "startup", "bundle"] as const;
type BenchName = (typeof BENCHES)[number];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: "string", multiple: true },
    budget: { type: "string" },
    "fast-budget": { type: "string" },
    "baseline-sample": { type: "string" },
    count: { type: "string" },
    "rate-limit": { type: "string" },
    runs: { type: "string" },
    source: { type: "string" },
    "no-write": { type: "boolean", default: false },
  },
});

const chosen = positionals.length === 0 ? [...BENCHES] : positionals;
for (const name of chosen) {
  if (!(BENCHES as readonly string[]).includes(name)) {
    process.stderr.write(`bench: unknown benchmark "${name}" (one of ${BENCHES.join(", ")})\n`);
    process.exit(2);
  }
}
const whole = positionals.length === 0;
const number = (raw: string | undefined, fallback: number) => (raw === undefined ? fallback : Number(raw));

const figures: Figure[] = [];
const details: Record<string, unknown> = {};
const failures: { bench: string; message: string }[] = [];
const started = performance.now();
const say = (line: string) => process.stderr.write(`${line}\n`);

async function step(name: string, run: () => Promise<Figure[]>): Promise<void> {
  const at = performance.now();
  say(`bench: ${name}…`);
  try {
    const produced = await run();
    figures.push(...produced);
    for (const figure of produced) {
      say(
        `  ${figure.name}: ${figure.value} ${figure.unit}${figure.reference ? ` (${figure.reference.label} ${figure.reference.value})` : ""} ${verdictOf(figure)}`,
      );
    }
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    failures.push({ bench: name, message: message.split("\n").slice(0, 3).join(" ") });
    say(`bench: ${name} failed: ${message}`);
  }
  say(`bench: ${name} took ${((performance.now() - at) / 1000).toFixed(1)} s`);
}

// The bundle first: it builds the renderer that the UI and startup benchmarks then serve.
const order: BenchName[] = ["bundle", "inventory", "scale", "destroy", "ui", "startup"];
/** The scale bench in the whole run: the rescan at 100,000, cold scan, rescan and startup at 1,000,000. */
const SCALE_SIZES = [100_000, 1_000_000];
const SCALE_FROM = 100_000;
const scaleStep = (size: number, source: ScaleSource) =>
  step(`scale ${size} ${source}`, async () => {
    const result = await runScaleBench({ size, source, budget: number(values["fast-budget"], 6000) });
    details[`scale-${size}-${source}`] = result;
    return scaleFigures(result);
  });
for (const name of order) {
  if (!chosen.includes(name)) continue;
  if (name === "bundle") {
    await step("bundle", async () => {
      const result = await runBundleBench();
      details.bundle = result;
      return bundleFigures(result);
    });
  } else if (name === "inventory") {
    const asked = values.size?.map(Number) ?? [2_000, 10_000, 20_000, 100_000];
    if (values.source !== undefined && values.source !== "paperclip-db") {
      say(`bench: --source must be paperclip-db (the ledger is the default way)`);
      process.exit(2);
    }
    // Worlds above 100,000 rows exist only as the scale bench streams them.
    const sizes = asked.filter((size) => size <= SCALE_FROM);
    for (const size of asked.filter((size) => size > SCALE_FROM))
      await scaleStep(size, values.source === "paperclip-db" ? "paperclip-db" : "ledger");
    for (const size of values.source === "paperclip-db" ? sizes : []) {
      await step(`inventory ${size} by source`, async () => {
        const result = await runSourceComparison({ size, budget: number(values.budget, 300) });
        details[`inventory-sources-${size}`] = result;
        return sourceComparisonFigures(result);
      });
    }
    for (const size of values.source === undefined ? sizes : []) {
      await step(`inventory ${size}`, async () => {
        const result = await runInventoryBench({
          size,
          budget: number(values.budget, 300),
          fastBudget: number(values["fast-budget"], 6000),
          baselineSample: number(values["baseline-sample"], 50),
        });
        details[`inventory-${size}`] = result;
        return inventoryFigures(result);
      });
    }
  } else if (name === "scale") {
    if (values.source !== undefined && values.source !== "ledger" && values.source !== "paperclip-db") {
      say(`bench: --source must be ledger or paperclip-db`);
      process.exit(2);
    }
    const sources: ScaleSource[] =
      values.source === undefined ? ["ledger", "paperclip-db"] : [values.source as ScaleSource];
    for (const size of values.size?.map(Number) ?? SCALE_SIZES)
      for (const source of sources) await scaleStep(size, source);
  } else if (name === "destroy") {
    await step("destroy", async () => {
      const result = await runDestroy({
        count: number(values.count, 1000),
        rateLimitPerMinute: number(values["rate-limit"], 6000),
      });
      details.destroy = result;
      return destroyFigures(result);
    });
  } else if (name === "ui") {
    await step("ui", async () => {
      const result = await runUiBench({ size: number(values.size?.[0], 20_000) });
      details.ui = result;
      return uiFigures(result);
    });
  } else if (name === "startup") {
    await step("startup", async () => {
      const result = await runStartupBench({ runs: number(values.runs, 3) });
      details.startup = result;
      return startupFigures(result);
    });
  }
}

const runMs = performance.now() - started;
const report: BenchReport = {
  generatedAt: new Date().toISOString(),
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
  runMs: Math.round(runMs),
  machine: machine(),
  figures: figures.map((figure) => ({ ...figure, verdict: verdictOf(figure) })),
  details,
  failures,
};

process.stdout.write(`\n${renderText(figures)}\n`);
for (const failure of failures) process.stdout.write(`${failure.bench} did not run: ${failure.message}\n`);
process.stdout.write(`\nbench: ${chosen.join(", ")} in ${(runMs / 1000).toFixed(1)} s\n`);
if (!values["no-write"]) {
  // The database comparison keeps a file of its own, beside the ledger way's `inventory`.
  const stem = whole
    ? "latest"
    : [...chosen, ...(values.source === undefined ? [] : [values.source])].join("-");
  const written = await writeReport(path.join(ROOT, "bench", "results"), stem, report);
  process.stdout.write(`bench: wrote ${written.map((file) => path.relative(ROOT, file)).join(" and ")}\n`);
}
process.exit(failures.length > 0 ? 1 : 0);
