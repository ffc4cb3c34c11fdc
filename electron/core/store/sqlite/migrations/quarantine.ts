import type { Migration } from "../migration.js";

export const QUARANTINE_MIGRATIONS: readonly Migration[] = [
  {
    version: 50,
    name: "quarantined sandboxes",
    up(db) {
      db.exec(`
        -- One row per quarantine: the whole record as JSON, with the columns it is found by. A sandbox
        -- has at most one open quarantine (the partial unique index), so two hosts quarantining it at
        -- once cannot both pause it and both schedule its destroy.
        -- pause_sent_at is written before the pause leaves: a restart that finds it set reads the
        -- sandbox instead of pausing it again.
        CREATE TABLE IF NOT EXISTS quarantines (
          quarantine_id  TEXT PRIMARY KEY,
          sandbox_id     TEXT NOT NULL,
          origin         TEXT NOT NULL,
          state          TEXT NOT NULL,
          due_at         TEXT NOT NULL,
          created_at     TEXT NOT NULL,
          pause_sent_at  TEXT,
          record         TEXT NOT NULL
        ) STRICT;
        CREATE UNIQUE INDEX IF NOT EXISTS quarantines_one_open_per_sandbox
          ON quarantines (origin, sandbox_id) WHERE state IN ('pausing', 'waiting', 'destroying');
        CREATE INDEX IF NOT EXISTS quarantines_by_state ON quarantines (state, due_at);
      `);
    },
  },
];
