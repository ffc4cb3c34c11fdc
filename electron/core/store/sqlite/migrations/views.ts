import type { Migration } from "../migration.js";

export const VIEW_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 45,
    name: "the last inventory's view, as the table shows it",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS last_view (
          id            INTEGER PRIMARY KEY CHECK (id = 1),
          generated_at  TEXT NOT NULL,
          view          TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
];
