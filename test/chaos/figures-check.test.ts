import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FIGURES_DIR as COMMITTED_DIR } from "../../scripts/reliability-figures.js";
import { FIGURES_DIR } from "./support/figures.js";
import { CHECKED_SUITES, checkFigures, KILL_POINTS, suiteOf } from "./support/figures-check.js";

// The figures docs/reliability.md quotes are checked like the runs they come from: every file the
// suites wrote passes, a figure that breaks a promise, or was not counted, fails the check, and a
// suite whose figures file is missing fails it too.

const GOOD = {
  "chaos-jobs": {
    suite: "chaos-jobs",
    runs: 2,
    items: 10,
    itemsLost: 0,
    faultsInjected: 3,
    faultRulesFired: 5,
    outages: 1,
    outcomes: { confirmed: 6, failed: 2, skipped: 2 },
    scenarios: [
      { faults: 1, rules: ["DELETE x"], rulesFired: { "DELETE x": 2 }, outage: false, outages: 0 },
      { faults: 2, rules: [], rulesFired: {}, outage: true, outages: 1 },
    ],
  },
  "chaos-inventory": {
    suite: "chaos-inventory-chaos-1",
    runs: 2,
    scenarios: 2,
    rowsChecked: 600,
    itemsLost: 0,
    faultsInjected: 4,
    runsBy: [
      {
        faults: 4,
        rules: ["GET x"],
        rulesFired: { "GET x": 4 },
        outage: false,
        outageSeen: false,
        itemsLost: 0,
      },
      { faults: 0, rules: [], rulesFired: {}, outage: true, outageSeen: true, itemsLost: 0 },
    ],
  },
  crash: {
    suite: "crash",
    crashesSurvived: 4,
    triggers: { request: 1, answer: 1, line: 1, delay: 1 },
    items: 16,
    itemsLost: 0,
    deletes: 16,
    confirmedItemsRepeated: 0,
    integrityChecks: 5,
  },
  "hostile-contract": {
    suite: "hostile-contract",
    inputsTried: 12,
    inProcess: { a: 5, b: 4 },
    overHttp: 3,
    crashes: 0,
  },
} as const;

const jobs = GOOD["chaos-jobs"];
const scans = GOOD["chaos-inventory"];

function readDir(dir: string): [string, Record<string, unknown>][] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .map((file) => [file, JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Record<string, unknown>]);
}

describe("the figures checker", () => {
  it.each(CHECKED_SUITES)("accepts honest %s figures", (suite) => {
    expect(checkFigures(GOOD[suite as keyof typeof GOOD])).toEqual([]);
  });

  it.each([
    ["an item lost", { ...jobs, itemsLost: 1 }],
    ["outcomes that do not add up", { ...jobs, outcomes: { confirmed: 9 } }],
    ["faults that never fired", { ...jobs, faultRulesFired: 0 }],
    ["a fault total that is not the scenarios' sum", { ...jobs, faultsInjected: 0 }],
    ["a figure left out", { ...jobs, itemsLost: undefined }],
    [
      "a scenario whose own rule never fired",
      { ...jobs, scenarios: [{ ...jobs.scenarios[0], rulesFired: {} }, jobs.scenarios[1]] },
    ],
    [
      "an outage scenario that had no outage of its own",
      { ...jobs, scenarios: [jobs.scenarios[0], { ...jobs.scenarios[1], outages: 0 }] },
    ],
    ["an outage total that is not the scenarios' sum", { ...jobs, outages: 2 }],
    ["scan figures with an item lost", { ...scans, itemsLost: 1 }],
    [
      "scan figures whose items lost are not the runs' sum",
      { ...scans, runsBy: [{ ...scans.runsBy[0], itemsLost: 2 }, scans.runsBy[1]] },
    ],
    ["scan figures without their runs", { ...scans, runsBy: undefined }],
    [
      "a scan scenario whose own rule never fired",
      { ...scans, runsBy: [{ ...scans.runsBy[0], rulesFired: {} }, scans.runsBy[1]] },
    ],
    [
      "a scan outage that was not seen",
      { ...scans, runsBy: [scans.runsBy[0], { ...scans.runsBy[1], outageSeen: false }] },
    ],
    ["a scan fault total that is not the runs' sum", { ...scans, faultsInjected: 9 }],
    ["a repeated confirmed item", { ...GOOD.crash, confirmedItemsRepeated: 1 }],
    ["a crash test that crashed nothing", { ...GOOD.crash, crashesSurvived: 0, integrityChecks: 1 }],
    ["a skipped integrity check", { ...GOOD.crash, integrityChecks: 2 }],
    ["a lost item after a crash", { ...GOOD.crash, itemsLost: 1 }],
    [
      "a kill point that never fired",
      { ...GOOD.crash, triggers: { request: 2, answer: 1, line: 1, delay: 0 } },
    ],
    [
      "kills by point that are not the kills",
      { ...GOOD.crash, triggers: { ...GOOD.crash.triggers, line: 3 } },
    ],
    ["a core that crashed under fuzzing", { ...GOOD["hostile-contract"], crashes: 1 }],
    ["inputs claimed but not counted", { ...GOOD["hostile-contract"], inputsTried: 1_000 }],
  ])("catches %s", (_, figures) => {
    expect(checkFigures(figures as Record<string, unknown>)).not.toEqual([]);
  });

  it("names the kill points the crash suite must reach", () => {
    expect(KILL_POINTS).toEqual(["request", "answer", "line", "delay"]);
  });

  it("finds a figures file for every checked suite among the committed figures, and each passes", () => {
    expect(existsSync(COMMITTED_DIR), `${COMMITTED_DIR} is missing`).toBe(true);
    const files = readDir(COMMITTED_DIR);
    for (const suite of CHECKED_SUITES) {
      const own = files.filter(([, figures]) => suiteOf(figures) === suite && figures.size === "small");
      expect(
        own.map(([file]) => file),
        `no small ${suite} figures in ${COMMITTED_DIR}`,
      ).not.toEqual([]);
    }
    for (const [file, figures] of files) expect(checkFigures(figures), file).toEqual([]);
  });

  it("passes every figures file the suites wrote in this checkout", () => {
    // A checkout where no suite has run yet has no such folder; the committed figures above still count.
    const files = existsSync(FIGURES_DIR) ? readDir(FIGURES_DIR) : [];
    for (const [file, figures] of files) expect(checkFigures(figures), file).toEqual([]);
  });
});
