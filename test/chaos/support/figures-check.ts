/**
 * What the figures files must say for docs/reliability.md to quote them: each figure present, counted
 * (the parts add up to the whole), and the promises held (nothing lost, nothing repeated, no crash). A
 * suite that wrote a figure it did not count, or a figure that broke a promise, is caught here.
 */

type Figures = Record<string, unknown>;

function number(figures: Figures, key: string, problems: string[]): number {
  const value = figures[key];
  if (typeof value !== "number" || !Number.isFinite(value)) {
    problems.push(`${key} is missing or not a number`);
    return Number.NaN;
  }
  return value;
}

function sum(record: unknown): number {
  if (typeof record !== "object" || record === null) return Number.NaN;
  return Object.values(record as Record<string, unknown>).reduce<number>(
    (total, value) => total + (typeof value === "number" ? value : Number.NaN),
    0,
  );
}

const CHECKS: Record<string, (figures: Figures, problems: string[]) => void> = {
  "chaos-jobs": (figures, problems) => {
    const runs = number(figures, "runs", problems);
    const items = number(figures, "items", problems);
    if (number(figures, "itemsLost", problems) !== 0) problems.push("items were lost");
    if (!(runs > 0 && items > 0)) problems.push("no run or no item was counted");
    if (sum(figures.outcomes) !== items) problems.push("the outcomes do not add up to the items");
    const scenarios = Array.isArray(figures.scenarios) ? (figures.scenarios as Figures[]) : [];
    if (scenarios.length !== runs) problems.push("runs and scenario records differ");
    const faults = scenarios.reduce((total, scenario) => total + Number(scenario.faults), 0);
    if (faults !== number(figures, "faultsInjected", problems))
      problems.push("faultsInjected is not the scenarios' sum");
    if (!(number(figures, "faultRulesFired", problems) > 0)) problems.push("no fault rule ever fired");
  },
  crash: (figures, problems) => {
    const crashes = number(figures, "crashesSurvived", problems);
    const items = number(figures, "items", problems);
    if (!(crashes > 0)) problems.push("no crash was survived");
    if (number(figures, "itemsLost", problems) !== 0) problems.push("items were lost");
    if (number(figures, "confirmedItemsRepeated", problems) !== 0)
      problems.push("confirmed items were repeated");
    if (number(figures, "deletes", problems) > items) problems.push("more DELETEs than items");
    if (number(figures, "integrityChecks", problems) !== crashes + 1)
      problems.push("an integrity check is missing (one per kill, one at the end)");
  },
  "hostile-contract": (figures, problems) => {
    const tried = number(figures, "inputsTried", problems);
    if (!(tried > 0)) problems.push("no input was tried");
    if (number(figures, "crashes", problems) !== 0) problems.push("the core crashed or answered internal");
    if (sum(figures.inProcess) + number(figures, "overHttp", problems) !== tried)
      problems.push("inputsTried is not the sum of what was tried");
  },
};

/** The problems with one suite's figures; suites without a check here are not quoted as proofs. */
export function checkFigures(figures: Figures): string[] {
  const problems: string[] = [];
  const suite = String(figures.suite ?? "");
  const check = CHECKS[suite];
  if (check === undefined) return [];
  check(figures, problems);
  return problems;
}

export const CHECKED_SUITES = Object.keys(CHECKS);
