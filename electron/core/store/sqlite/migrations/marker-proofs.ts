import type { Migration } from "../migration.js";

export const MARKER_PROOF_MIGRATIONS: readonly Migration[] = [
  {
    version: 40,
    name: "marker proofs kept with the inventory",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS marker_proofs (
          proof_key  TEXT PRIMARY KEY,
          read_at    TEXT NOT NULL,
          proof      TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
];
