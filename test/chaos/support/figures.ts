import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CHAOS_SIZE } from "./size.js";

/**
 * The figures each reliability suite writes after it runs: how many faults it injected, crashes it
 * survived, inputs it tried, items it lost. One file per suite and size, so suites running side by side
 * in separate workers never write the same file. docs/reliability.md quotes the full-size files.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const FIGURES_DIR = path.join(ROOT, "test-results", "reliability");

export function figuresFile(suite: string, size = CHAOS_SIZE): string {
  return path.join(FIGURES_DIR, `${suite}-${size}.json`);
}

export function writeFigures(suite: string, figures: Record<string, unknown>): string {
  mkdirSync(FIGURES_DIR, { recursive: true });
  const file = figuresFile(suite);
  const body = { suite, size: CHAOS_SIZE, finishedAt: new Date().toISOString(), ...figures };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  return file;
}

export function readFigures(suite: string, size = CHAOS_SIZE): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(figuresFile(suite, size), "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}
