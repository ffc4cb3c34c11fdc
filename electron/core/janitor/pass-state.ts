import { appendFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { JANITOR_ACTIONS, type PassReport, PassReportSchema } from "../../../shared/domain/janitor/index.js";

/**
 * What a pass keeps: the last pass's report in the data directory's `janitor/` folder (what the app
 * shows, and what "found something new" is judged against), and which plans and quarantines each rule
 * took when it acted, so the caps per hour can be counted from the audit log by rule. Those are kept in
 * the store the engine's journal and audit log are in (the team's, when it has one), so every watcher of
 * a policy on it counts and resumes them alike; before, each data directory kept its own in
 * `janitor/taken.jsonl`, which is still read. A dry run notes nothing: its plans are cancelled, and a cap
 * counts only actions taken.
 */

export const JANITOR_DIR = "janitor";
const LAST_PASS = "last-pass.json";
const TAKEN = "taken.jsonl";
export const STOP_FILE = "stop";

export const TakenSchema = z.object({
  rule: z.string(),
  action: z.enum(JANITOR_ACTIONS),
  /** The engine's plan (release, destroy) or the quarantine's id, as the audit log names it. */
  planId: z.string(),
  /** The policy's operator it was taken as; absent from the lines of `taken.jsonl` written before. */
  operator: z.string().optional(),
  at: z.string(),
});
export type Taken = z.infer<typeof TakenSchema>;

/**
 * Where the plans the rules took are kept: the store of the engine's journal and audit log, or null
 * where the core keeps no store (the data directory's `taken.jsonl` then, as before).
 */
export interface TakenStore {
  note(taken: Taken & { operator: string }): Promise<void>;
  /** The records of these plans, any that were taken. */
  find(planIds: readonly string[]): Promise<unknown[]>;
}

export interface TakenPlace {
  taken: TakenStore | null;
  dataDir: string;
}

export function janitorDir(dataDir: string): string {
  return path.join(dataDir, JANITOR_DIR);
}

export function defaultStopFile(dataDir: string): string {
  return path.join(janitorDir(dataDir), STOP_FILE);
}

export async function readLastPass(dataDir: string): Promise<PassReport | null> {
  try {
    const parsed = PassReportSchema.safeParse(
      JSON.parse(await readFile(path.join(janitorDir(dataDir), LAST_PASS), "utf8")),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function writeLastPass(dataDir: string, report: PassReport): Promise<void> {
  await mkdir(janitorDir(dataDir), { recursive: true });
  await writeFileAtomic(path.join(janitorDir(dataDir), LAST_PASS), `${JSON.stringify(report, null, 2)}\n`);
}

/** Noted before the action is sent, so an action a crash cut short still counts by its rule. */
export async function noteTaken(place: TakenPlace, taken: Taken & { operator: string }): Promise<void> {
  if (place.taken !== null) {
    await place.taken.note(taken);
    return;
  }
  await mkdir(janitorDir(place.dataDir), { recursive: true });
  await appendFile(path.join(janitorDir(place.dataDir), TAKEN), `${JSON.stringify(taken)}\n`);
}

/**
 * Of these plans, the ones a rule of a policy acting as `operator` took, by plan id: as the store has
 * them, whichever watcher on it took them, and as this data directory's `taken.jsonl` has them. The
 * file's lines written before the store kept them name no operator: they are this data directory's
 * own, and count as they always did. A record that does not parse is skipped.
 */
export async function readTakenOf(
  place: TakenPlace,
  operator: string,
  planIds: readonly string[],
): Promise<Map<string, Taken>> {
  const wanted = new Set(planIds);
  const found = new Map<string, Taken>();
  for (const entry of await readTaken(place.dataDir)) {
    if (wanted.has(entry.planId) && (entry.operator ?? operator) === operator) found.set(entry.planId, entry);
  }
  if (place.taken === null || wanted.size === 0) return found;
  for (const record of await place.taken.find([...wanted])) {
    const parsed = TakenSchema.safeParse(record);
    if (parsed.success && parsed.data.operator === operator) found.set(parsed.data.planId, parsed.data);
  }
  return found;
}

/** Every plan and quarantine a rule noted in the data directory's file; a line that does not parse is skipped. */
async function readTaken(dataDir: string): Promise<Taken[]> {
  let text: string;
  try {
    text = await readFile(path.join(janitorDir(dataDir), TAKEN), "utf8");
  } catch {
    return [];
  }
  const taken: Taken[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const parsed = TakenSchema.safeParse(JSON.parse(line));
      if (parsed.success) taken.push(parsed.data);
    } catch {
      // a line cut by a crash
    }
  }
  return taken;
}
