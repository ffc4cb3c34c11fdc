import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkFigures } from "../test/chaos/support/figures-check.js";

/**
 * docs/reliability.md's figures table, made from the files the reliability suites write rather than
 * typed in: `npm run reliability:figures` copies test-results/reliability/*.json into
 * docs/reliability/figures/ (only files that pass the figures check) and rewrites the table between its
 * markers from them. A test keeps the page and the committed files in step.
 */

export type Figures = Record<string, unknown>;
export type Size = "small" | "full";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const RESULTS_DIR = path.join(ROOT, "test-results", "reliability");
export const FIGURES_DIR = path.join(ROOT, "docs", "reliability", "figures");
export const PAGE = path.join(ROOT, "docs", "reliability.md");
export const START_MARKER = "<!-- figures:start (npm run reliability:figures writes this table) -->";
export const END_MARKER = "<!-- figures:end -->";

export function readFiguresDir(dir: string): Figures[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(readFileSync(path.join(dir, name), "utf8")) as Figures);
}

function num(figures: Figures | undefined, key: string): number | null {
  const value = figures?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function sumOf(files: Figures[], key: string): number | null {
  const values = files.map((figures) => num(figures, key));
  return values.length === 0 || values.some((value) => value === null)
    ? null
    : values.reduce<number>((total, value) => total + (value ?? 0), 0);
}

function count(value: number | null): string {
  return value === null ? "—" : value.toLocaleString("en-US");
}

function record(figures: Figures | undefined, key: string): Record<string, number> {
  const value = figures?.[key];
  return typeof value === "object" && value !== null ? (value as Record<string, number>) : {};
}

interface Column {
  jobs?: Figures;
  inventory: Figures[];
  crash?: Figures;
  contract?: Figures;
  ledger?: Figures;
  strings?: Figures;
}

function column(files: Figures[], size: Size): Column {
  const of = (suite: string) => files.find((figures) => figures.suite === suite && figures.size === size);
  return {
    jobs: of("chaos-jobs"),
    inventory: files.filter(
      (figures) => String(figures.suite).startsWith("chaos-inventory") && figures.size === size,
    ),
    crash: of("crash"),
    contract: of("hostile-contract"),
    ledger: of("hostile-ledger"),
    strings: of("hostile-strings"),
  };
}

/** The table rows for one size's files; a figure no file carries reads "—". */
function cells(c: Column): string[] {
  const outcomes = record(c.jobs, "outcomes");
  const triggers = record(c.crash, "triggers");
  const seeds = Array.isArray(c.jobs?.seeds) ? (c.jobs.seeds as unknown[]).length : null;
  const lost = [c.jobs, c.crash, ...c.inventory]
    .filter((figures): figures is Figures => figures !== undefined)
    .map((figures) => num(figures, "itemsLost"));
  const itemsLost =
    lost.length === 0 || lost.some((value) => value === null)
      ? null
      : lost.reduce((a, b) => (a ?? 0) + (b ?? 0), 0);
  const first = c.inventory[0];
  return [
    `${count(num(c.jobs, "scenarioCount"))} × ${count(seeds)}`,
    `${count(num(c.jobs, "runs"))} / ${count(num(c.jobs, "items"))}`,
    `${count(num(c.jobs, "faultsInjected"))} / ${count(num(c.jobs, "faultRulesFired"))} / ${count(num(c.jobs, "outages"))}`,
    c.jobs
      ? ["confirmed", "failed", "unconfirmed", "skipped"].map((key) => count(outcomes[key] ?? 0)).join(", ")
      : "—",
    `${count(num(first, "leases"))} × ${count(num(first, "scenarios"))} × ${count(c.inventory.length || null)}`,
    `${count(sumOf(c.inventory, "rowsChecked"))} / ${count(sumOf(c.inventory, "unknownRows"))}`,
    count(sumOf(c.inventory, "plansChecked")),
    `${count(num(c.crash, "crashesSurvived"))} (${count(num(c.crash, "restarts"))})`,
    c.crash
      ? ["request", "answer", "line", "delay"].map((key) => count(triggers[key] ?? 0)).join(" / ")
      : "—",
    `${count(num(c.crash, "items"))} / ${count(num(c.crash, "deletes"))} / ${count(num(c.crash, "confirmedItemsRepeated"))}`,
    count(num(c.crash, "integrityChecks")),
    `${count(num(c.contract, "inputsTried"))} (${count(num(c.contract, "overHttp"))}) / ${count(num(c.contract, "crashes"))}`,
    `${count(num(c.ledger, "problemsListed"))} / ${count(num(c.ledger, "goodLoaded"))}`,
    `${count(num(c.strings, "corpus"))} × ${count(num(c.strings, "placements"))}`,
    `**${count(itemsLost)}**`,
  ];
}

const ROW_NAMES = [
  "**Bulk jobs under faults** — scenarios × seeds",
  "runs / plan items",
  "faults injected / fault rules fired / origin outages",
  "outcomes (confirmed, failed, unconfirmed, skipped)",
  "**Inventory scans under faults** — leases per world × scenarios × seeds",
  "rows compared with the fault-free truth / of them `unknown`",
  "plans made from faulted inventories",
  "**Crashes** — SIGKILLs survived (restarts)",
  "kill points: request not sent / answer not relayed / after a progress line / timer",
  "items / DELETEs at the simulator / confirmed items repeated",
  "integrity checks passed",
  "**Hostile input** — payloads tried (of them over HTTP) / crashes counted",
  "malformed ledger rows listed / good rows loaded",
  "hostile strings × placements checked",
  "**Items lost**",
];

function runDates(files: Figures[], size: Size): string {
  const dates = files
    .filter((figures) => figures.size === size && typeof figures.finishedAt === "string")
    .map((figures) => String(figures.finishedAt).slice(0, 10))
    .sort();
  if (dates.length === 0) return "no run recorded";
  const [from, to] = [dates[0]!, dates[dates.length - 1]!];
  return from === to ? `run ${from}` : `runs ${from} to ${to}`;
}

export function renderFiguresTable(files: Figures[]): string {
  const small = cells(column(files, "small"));
  const full = cells(column(files, "full"));
  const header = [
    `| | small (\`npm test\`; ${runDates(files, "small")}) | full (\`npm run test:chaos\`; ${runDates(files, "full")}) |`,
    "|---|---|---|",
  ];
  return [...header, ...ROW_NAMES.map((name, at) => `| ${name} | ${small[at]} | ${full[at]} |`)].join("\n");
}

/** The page with its table replaced; throws when the markers are missing, so nothing is lost silently. */
export function withFiguresTable(page: string, table: string): string {
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`${PAGE} has lost its figures markers; put them back first.`);
  return `${page.slice(0, start + START_MARKER.length)}\n${table}\n${page.slice(end)}`;
}

function main(): void {
  mkdirSync(FIGURES_DIR, { recursive: true });
  for (const name of readdirSync(RESULTS_DIR).filter((file) => file.endsWith(".json"))) {
    const figures = JSON.parse(readFileSync(path.join(RESULTS_DIR, name), "utf8")) as Figures;
    const problems = checkFigures(figures);
    if (problems.length > 0) {
      console.error(`left out ${name}: ${problems.join("; ")}`);
      continue;
    }
    copyFileSync(path.join(RESULTS_DIR, name), path.join(FIGURES_DIR, name));
  }
  const table = renderFiguresTable(readFiguresDir(FIGURES_DIR));
  writeFileSync(PAGE, withFiguresTable(readFileSync(PAGE, "utf8"), table));
  console.log(`docs/reliability.md: figures table written from ${FIGURES_DIR}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
