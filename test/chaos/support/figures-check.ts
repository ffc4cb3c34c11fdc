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

function records(figures: Figures, key: string, problems: string[]): Figures[] {
  const value = figures[key];
  if (!Array.isArray(value)) {
    problems.push(`${key} (one record per run) is missing`);
    return [];
  }
  return value as Figures[];
}

/** Each run's own fault rules fired, and its own outage happened: a run never borrows another's. */
function ownFaults(runs: Figures[], problems: string[]): void {
  runs.forEach((run, at) => {
    const fired = (run.rulesFired ?? {}) as Record<string, unknown>;
    const rules = Array.isArray(run.rules) ? (run.rules as string[]) : null;
    if (rules === null) problems.push(`run ${at + 1} does not say which fault rules it armed`);
    for (const rule of rules ?? []) {
      if (!(Number(fired[rule]) > 0)) problems.push(`run ${at + 1}: its rule ${rule} never fired`);
    }
  });
}

/** The kill points the crash suite picks from; each must have killed the job process at least once. */
export const KILL_POINTS = ["request", "answer", "line", "delay"] as const;

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
    ownFaults(scenarios, problems);
    scenarios.forEach((scenario, at) => {
      if (scenario.outage === true && !(Number(scenario.outages) > 0))
        problems.push(`run ${at + 1}: its outage never happened`);
    });
    const outages = scenarios.reduce((total, scenario) => total + Number(scenario.outages), 0);
    if (outages !== number(figures, "outages", problems)) problems.push("outages is not the scenarios' sum");
  },
  "chaos-inventory": (figures, problems) => {
    const runs = number(figures, "runs", problems);
    const lost = number(figures, "itemsLost", problems);
    if (lost !== 0) problems.push("items were lost");
    if (!(runs > 0 && number(figures, "rowsChecked", problems) > 0))
      problems.push("no run or no row was counted");
    const byRun = records(figures, "runsBy", problems);
    if (byRun.length !== runs) problems.push("runs and run records differ");
    ownFaults(byRun, problems);
    byRun.forEach((run, at) => {
      if (run.outage === true && run.outageSeen !== true)
        problems.push(`run ${at + 1}: its outage was not seen`);
    });
    const sumOf = (key: string) => byRun.reduce((total, run) => total + Number(run[key]), 0);
    if (sumOf("itemsLost") !== lost) problems.push("itemsLost is not the runs' sum");
    if (sumOf("faults") !== number(figures, "faultsInjected", problems))
      problems.push("faultsInjected is not the runs' sum");
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
    const triggers = (figures.triggers ?? {}) as Record<string, unknown>;
    for (const point of KILL_POINTS) {
      if (!(Number(triggers[point]) > 0)) problems.push(`the ${point} kill point never fired`);
    }
    if (sum(triggers) !== crashes) problems.push("the kills by point do not add up to the kills");
  },
  "hostile-contract": (figures, problems) => {
    const tried = number(figures, "inputsTried", problems);
    if (!(tried > 0)) problems.push("no input was tried");
    if (number(figures, "crashes", problems) !== 0) problems.push("the core crashed or answered internal");
    if (sum(figures.inProcess) + number(figures, "overHttp", problems) !== tried)
      problems.push("inputsTried is not the sum of what was tried");
  },
};

/** The check a figures file answers to: the inventory suite writes one file per seed. */
export function suiteOf(figures: Figures): string {
  const suite = String(figures.suite ?? "");
  return suite.startsWith("chaos-inventory-") ? "chaos-inventory" : suite;
}

/** The problems with one suite's figures; suites without a check here are not quoted as proofs. */
export function checkFigures(figures: Figures): string[] {
  const problems: string[] = [];
  const check = CHECKS[suiteOf(figures)];
  if (check === undefined) return [];
  check(figures, problems);
  return problems;
}

export const CHECKED_SUITES = Object.keys(CHECKS);
