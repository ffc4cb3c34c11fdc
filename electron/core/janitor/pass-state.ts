import { appendFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { JANITOR_ACTIONS, type PassReport, PassReportSchema } from "../../../shared/domain/janitor/index.js";

/**
 * What `watch` keeps in the data directory's `janitor/` folder: the last pass's report (what the app
 * shows, and what "found something new" is judged against), and which plans and quarantines each rule
 * made when it acted, so the caps per hour can be counted from the audit log by rule. A dry run adds
 * nothing to the second: its plans are cancelled, and a cap counts only actions taken.
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
  at: z.string(),
});
export type Taken = z.infer<typeof TakenSchema>;

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

/** Appended before the action is sent, so an action a crash cut short still counts by its rule. */
export async function noteTaken(dataDir: string, taken: Taken): Promise<void> {
  await mkdir(janitorDir(dataDir), { recursive: true });
  await appendFile(path.join(janitorDir(dataDir), TAKEN), `${JSON.stringify(taken)}\n`);
}

/** Every plan and quarantine a rule made when acting; a line that does not parse is skipped. */
export async function readTaken(dataDir: string): Promise<Taken[]> {
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
