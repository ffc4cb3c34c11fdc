import type { Migration } from "../migration.js";

/**
 * Appended after version 70: the plans and quarantines a janitor's rule took, kept where the engine's
 * journal and audit log are, so the hourly caps count them by rule and an interrupted job is known as a
 * pass's from the store alone.
 */
export const JANITOR_TAKEN_MIGRATIONS: readonly Migration[] = [
  {
    version: 71,
    name: "the plans a janitor's rules took",
    up(db) {
      db.exec(`
        -- One row per plan (release, destroy) or quarantine a rule took, written before its request is
        -- sent; operator is the policy's, so a pass counts and resumes only its policy's.
        CREATE TABLE IF NOT EXISTS janitor_taken (
          plan_id   TEXT PRIMARY KEY,
          rule      TEXT NOT NULL,
          action    TEXT NOT NULL,
          operator  TEXT NOT NULL,
          at        TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
];
