import { rmSync } from "node:fs";
import path from "node:path";
import { openDatabase } from "../../store/database.js";
import { janitorDir } from "../pass-state.js";

/**
 * Drops every note of which rule took which plan from a data directory's own store and its file of
 * before, so its plans are known by the audit log's operator name alone, as a person's console's are.
 * Returns how many the store held.
 */
export function forgetTaken(dataDir: string): number {
  const db = openDatabase(dataDir);
  try {
    rmSync(path.join(janitorDir(dataDir), "taken.jsonl"), { force: true });
    return db.prepare("DELETE FROM janitor_taken").run().changes;
  } finally {
    db.close();
  }
}
