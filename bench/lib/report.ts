import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * One figure of a benchmark, next to the floor or baseline it is judged against (measured in the same
 * run) and its target. A figure without a target is context for the ones that have one.
 */
export interface Figure {
  bench: string;
  /** What was measured, in the operator's words ("requests", "wall time", "filter p95"). */
  name: string;
  value: number;
  unit: Unit;
  /** The floor or baseline, measured or computed in the same run, or null when the figure has none. */
  reference: { label: string; value: number; unit?: Unit } | null;
  target: Target | null;
  /** How the figure was taken when it is not plain (sampled, extrapolated, cold, …). */
  note?: string;
}

export type Unit = "ms" | "s" | "requests" | "req/item" | "MB" | "kB" | "B" | "B/row" | "x" | "count";

/** `ratio`: value ÷ reference must stay at or under `max`; otherwise value itself is compared. */
export type Target =
  | { kind: "max"; value: number; text?: string }
  | { kind: "ratio"; max: number; text?: string }
  | { kind: "equal"; value: number; text?: string };

export type Verdict = "met" | "missed" | "—";

export function verdictOf(figure: Figure): Verdict {
  const { target } = figure;
  if (target === null) return "—";
  if (!Number.isFinite(figure.value)) return "missed";
  switch (target.kind) {
    case "max":
      return figure.value <= target.value ? "met" : "missed";
    case "equal":
      return figure.value === target.value ? "met" : "missed";
    case "ratio": {
      const reference = figure.reference?.value ?? Number.NaN;
      if (!(reference > 0)) return "missed";
      return figure.value / reference <= target.max ? "met" : "missed";
    }
  }
}

export function formatNumber(value: number, unit?: Unit): string {
  if (!Number.isFinite(value)) return "n/a";
  const abs = Math.abs(value);
  const digits = abs >= 100 || Number.isInteger(value) ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const text = value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  return unit === undefined || unit === "count" ? text : `${text} ${unit}`;
}

function ratioText(figure: Figure): string {
  const reference = figure.reference;
  if (reference === null || !(reference.value > 0) || (reference.unit ?? figure.unit) !== figure.unit)
    return "";
  const ratio = figure.value / reference.value;
  return ` (${ratio >= 100 ? ratio.toFixed(0) : ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×)`;
}

export function targetText(figure: Figure): string {
  const { target } = figure;
  if (target === null) return "";
  if (target.text) return target.text;
  switch (target.kind) {
    case "max":
      return `≤ ${formatNumber(target.value, figure.unit)}`;
    case "equal":
      return `= ${formatNumber(target.value, figure.unit)}`;
    case "ratio":
      return `≤ ${target.max}× ${figure.reference?.label ?? "reference"}`;
  }
}

interface Cells {
  bench: string;
  figure: string;
  measured: string;
  reference: string;
  target: string;
  verdict: string;
}

function cellsOf(figure: Figure): Cells {
  const reference = figure.reference
    ? `${formatNumber(figure.reference.value, figure.reference.unit ?? figure.unit)} ${figure.reference.label}`
    : "";
  return {
    bench: figure.bench,
    figure: figure.note ? `${figure.name} ¹` : figure.name,
    measured: `${formatNumber(figure.value, figure.unit)}${ratioText(figure)}`,
    reference,
    target: targetText(figure),
    verdict: verdictOf(figure),
  };
}

const HEADERS: Cells = {
  bench: "Benchmark",
  figure: "Figure",
  measured: "Measured",
  reference: "Floor / baseline (same run)",
  target: "Target",
  verdict: "Met",
};
const COLUMNS = Object.keys(HEADERS) as (keyof Cells)[];

/** The table for a terminal: fixed-width columns, notes numbered under it. */
export function renderText(figures: readonly Figure[]): string {
  const rows = figures.map(cellsOf);
  const widths = COLUMNS.map((column) =>
    Math.max(HEADERS[column].length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: Cells) =>
    COLUMNS.map((column, at) => cells[column].padEnd(widths[at] ?? 0))
      .join("  ")
      .trimEnd();
  const rule = widths.map((width) => "─".repeat(width)).join("  ");
  return [line(HEADERS), rule, ...rows.map(line), "", ...notes(figures)].join("\n");
}

/** The same table in Markdown, for bench/results/latest.md and the README. */
export function renderMarkdown(figures: readonly Figure[]): string {
  const escapePipes = (text: string) => text.replaceAll("|", "\\|");
  const rows = figures.map(cellsOf);
  return [
    `| ${COLUMNS.map((column) => HEADERS[column]).join(" | ")} |`,
    `| ${COLUMNS.map((column) => (column === "measured" ? "---:" : "---")).join(" | ")} |`,
    ...rows.map((row) => `| ${COLUMNS.map((column) => escapePipes(row[column])).join(" | ")} |`),
    "",
    ...notes(figures).map((note) => `${note}  `),
  ].join("\n");
}

function notes(figures: readonly Figure[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const figure of figures) {
    if (!figure.note) continue;
    const text = `¹ ${figure.bench} · ${figure.name}: ${figure.note}`;
    if (seen.has(text)) continue;
    seen.add(text);
    lines.push(text);
  }
  return lines;
}

export interface Machine {
  node: string;
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  loadAverage: number[];
  platform: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    loadAverage: os.loadavg().map((value) => Number(value.toFixed(2))),
    platform: `${os.platform()} ${os.release()}`,
  };
}

export interface BenchReport {
  generatedAt: string;
  command: string;
  /** Wall time of the whole run. */
  runMs: number;
  machine: Machine;
  figures: (Figure & { verdict: Verdict })[];
  /** Each benchmark's full result, for reading the figures (request breakdowns, phase timings, …). */
  details: Record<string, unknown>;
  /** Benchmarks that could not run, with why. */
  failures: { bench: string; message: string }[];
}

export async function writeReport(dir: string, stem: string, report: BenchReport): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const json = path.join(dir, `${stem}.json`);
  const md = path.join(dir, `${stem}.md`);
  await writeFile(json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(md, markdownReport(report));
  return [json, md];
}

export function markdownReport(report: BenchReport): string {
  const { machine: m } = report;
  const failures = report.failures.map((failure) => `- **${failure.bench}** did not run: ${failure.message}`);
  return [
    `# Benchmark results`,
    "",
    `\`${report.command}\` · ${report.generatedAt} · ${formatNumber(report.runMs / 1000, "s")} · ` +
      `${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}, load average ${m.loadAverage.join(" / ")}`,
    "",
    renderMarkdown(report.figures),
    ...(failures.length > 0 ? ["", ...failures] : []),
    "",
  ].join("\n");
}
