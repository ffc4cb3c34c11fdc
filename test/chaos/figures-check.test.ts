import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FIGURES_DIR } from "./support/figures.js";
import { CHECKED_SUITES, checkFigures } from "./support/figures-check.js";

// The figures docs/reliability.md quotes are checked like the runs they come from: every file the
// suites wrote passes, and a figure that breaks a promise, or was not counted, fails the check.

const GOOD = {
  "chaos-jobs": {
    suite: "chaos-jobs",
    runs: 2,
    items: 10,
    itemsLost: 0,
    faultsInjected: 3,
    faultRulesFired: 5,
    outcomes: { confirmed: 6, failed: 2, skipped: 2 },
    scenarios: [{ faults: 1 }, { faults: 2 }],
  },
  crash: {
    suite: "crash",
    crashesSurvived: 2,
    items: 16,
    itemsLost: 0,
    deletes: 16,
    confirmedItemsRepeated: 0,
    integrityChecks: 3,
  },
  "hostile-contract": {
    suite: "hostile-contract",
    inputsTried: 12,
    inProcess: { a: 5, b: 4 },
    overHttp: 3,
    crashes: 0,
  },
} as const;

describe("the figures checker", () => {
  it.each(CHECKED_SUITES)("accepts honest %s figures", (suite) => {
    expect(checkFigures(GOOD[suite as keyof typeof GOOD])).toEqual([]);
  });

  it.each([
    ["an item lost", { ...GOOD["chaos-jobs"], itemsLost: 1 }],
    ["outcomes that do not add up", { ...GOOD["chaos-jobs"], outcomes: { confirmed: 9 } }],
    ["faults that never fired", { ...GOOD["chaos-jobs"], faultRulesFired: 0 }],
    ["a fault total that is not the scenarios' sum", { ...GOOD["chaos-jobs"], faultsInjected: 0 }],
    ["a figure left out", { ...GOOD["chaos-jobs"], itemsLost: undefined }],
    ["a repeated confirmed item", { ...GOOD.crash, confirmedItemsRepeated: 1 }],
    ["a crash test that crashed nothing", { ...GOOD.crash, crashesSurvived: 0, integrityChecks: 1 }],
    ["a skipped integrity check", { ...GOOD.crash, integrityChecks: 2 }],
    ["a lost item after a crash", { ...GOOD.crash, itemsLost: 1 }],
    ["a core that crashed under fuzzing", { ...GOOD["hostile-contract"], crashes: 1 }],
    ["inputs claimed but not counted", { ...GOOD["hostile-contract"], inputsTried: 1_000 }],
  ])("catches %s", (_, figures) => {
    expect(checkFigures(figures as Record<string, unknown>)).not.toEqual([]);
  });

  it("passes every figures file the suites wrote", () => {
    let files: string[] = [];
    try {
      files = readdirSync(FIGURES_DIR).filter((file) => file.endsWith(".json"));
    } catch {
      // No suite has run in this checkout yet: nothing to check.
    }
    for (const file of files) {
      const figures = JSON.parse(readFileSync(path.join(FIGURES_DIR, file), "utf8")) as Record<
        string,
        unknown
      >;
      expect(checkFigures(figures), file).toEqual([]);
    }
  });
});
