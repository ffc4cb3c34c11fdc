import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  END_MARKER,
  FIGURES_DIR,
  type Figures,
  PAGE,
  readFiguresDir,
  renderFiguresTable,
  START_MARKER,
  withFiguresTable,
} from "./reliability-figures.js";

const jobs = (itemsLost: number): Figures => ({
  suite: "chaos-jobs",
  size: "small",
  finishedAt: "2026-12-01T10:00:00.000Z",
  scenarioCount: 2,
  seeds: [11],
  runs: 2,
  items: 60,
  itemsLost,
  faultsInjected: 7,
  faultRulesFired: 9,
  outages: 1,
  outcomes: { confirmed: 20, failed: 5, unconfirmed: 1, skipped: 34 },
});

const crash: Figures = {
  suite: "crash",
  size: "small",
  finishedAt: "2026-12-01T10:01:00.000Z",
  crashesSurvived: 4,
  restarts: 6,
  triggers: { request: 1, answer: 2, line: 1, delay: 0 },
  items: 8,
  deletes: 8,
  confirmedItemsRepeated: 0,
  itemsLost: 0,
  integrityChecks: 5,
};

function row(table: string, name: string): string[] {
  const line = table.split("\n").find((candidate) => candidate.startsWith(`| ${name}`));
  if (!line) throw new Error(`no row "${name}" in\n${table}`);
  return line
    .split("|")
    .slice(2, -1)
    .map((cell) => cell.trim());
}

describe("the reliability figures table", () => {
  it("is made from the figures files, each size in its column", () => {
    const table = renderFiguresTable([jobs(0), crash]);
    expect(row(table, "runs / plan items")).toEqual(["2 / 60", "— / —"]);
    expect(row(table, "faults injected")).toEqual(["7 / 9 / 1", "— / — / —"]);
    expect(row(table, "outcomes")).toEqual(["20, 5, 1, 34", "—"]);
    expect(row(table, "kill points")).toEqual(["1 / 2 / 1 / 0", "—"]);
    expect(row(table, "**Items lost**")).toEqual(["**0**", "**—**"]);
    expect(table).toContain("small (`npm test`; run 2026-12-01)");
  });

  it("shows a lost item as the files say it, never a hopeful zero", () => {
    expect(row(renderFiguresTable([jobs(3), crash]), "**Items lost**")[0]).toBe("**3**");
  });

  it("refuses a page that has lost its markers instead of writing somewhere else", () => {
    expect(() => withFiguresTable("# Reliability\n", "| table |")).toThrow(/markers/);
    const page = `intro\n${START_MARKER}\nold\n${END_MARKER}\noutro\n`;
    expect(withFiguresTable(page, "| new |")).toBe(`intro\n${START_MARKER}\n| new |\n${END_MARKER}\noutro\n`);
  });

  it("docs/reliability.md quotes exactly the committed figures files", () => {
    const files = readFiguresDir(FIGURES_DIR);
    expect(files.length, `no figures files in ${FIGURES_DIR}`).toBeGreaterThan(0);
    const page = readFileSync(PAGE, "utf8");
    expect(page).toBe(withFiguresTable(page, renderFiguresTable(files)));
  });
});
