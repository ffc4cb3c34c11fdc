import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { ensureChromium } from "./chromium.js";

/**
 * `npm test`: everything CI runs, in order, each step's summary printed, and one closing line
 * counting every test. Exits non-zero when any step fails; a later step still runs so one report
 * shows every failure.
 */

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

const results: Array<{ step: string; ok: boolean; counts?: Counts }> = [];

function run(step: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): boolean {
  console.log(`\n▶ ${step}: ${command} ${args.join(" ")}`);
  const child = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  return child.status === 0;
}

function readJson(path: string): unknown {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

function vitestCounts(path: string): Counts | undefined {
  const report = readJson(path) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
  } | null;
  if (!report) return undefined;
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests,
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

function playwrightCounts(path: string): Counts | undefined {
  const report = readJson(path) as {
    stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  } | null;
  if (!report) return undefined;
  const { expected, unexpected, flaky, skipped } = report.stats;
  return { passed: expected + flaky, failed: unexpected, skipped };
}

const only = process.argv.slice(2);
const wants = (step: string) => only.length === 0 || only.includes(step);
mkdirSync("test-results", { recursive: true });

if (wants("typecheck")) {
  results.push({
    step: "typecheck",
    ok: run("typecheck", "npx", ["tsc", "-p", "tsconfig.json", "--noEmit"]),
  });
}
if (wants("lint")) {
  results.push({ step: "lint", ok: run("lint", "npx", ["biome", "check", "."]) });
}
if (wants("deps")) {
  results.push({
    step: "dependency rules",
    ok: run("dependency rules (dependency-cruiser)", "npm", ["run", "--silent", "deps:check"]),
  });
}
if (wants("unit")) {
  const output = "test-results/vitest.json";
  const ok = run("unit and integration (vitest)", "npx", [
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${output}`,
  ]);
  results.push({ step: "vitest", ok, counts: vitestCounts(output) });
}
if (wants("e2e")) {
  let chromiumReady = true;
  try {
    const chromium = ensureChromium();
    console.log(`\nChromium for end-to-end tests: ${chromium}`);
  } catch (error) {
    console.error((error as Error).message);
    chromiumReady = false;
  }
  const built = chromiumReady && run("build renderer", "npx", ["vite", "build", "--logLevel", "warn"]);
  const output = "test-results/e2e.json";
  const ok =
    built &&
    run("end-to-end (playwright, chromium)", "npx", ["playwright", "test", "--reporter=list,json"], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: output,
    });
  results.push({ step: "playwright", ok, counts: built ? playwrightCounts(output) : undefined });
}

console.log("\nSummary");
const total: Counts = { passed: 0, failed: 0, skipped: 0 };
for (const { step, ok, counts } of results) {
  const figures = counts
    ? `: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`
    : "";
  console.log(`  ${ok ? "ok  " : "FAIL"} ${step}${figures}`);
  if (counts) {
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
  }
}
const failedSteps = results.filter((result) => !result.ok).length;
if (failedSteps > 0 && total.failed === 0) total.failed = failedSteps;
console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(results.every((result) => result.ok) ? 0 : 1);
