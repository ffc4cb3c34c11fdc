import type { Migration } from "../migration.js";

/** The inventory cache: the last inventory per source, and the scan-wide part of it. */
export const INVENTORY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "last inventory per source",
    up(db) {
      db.exec(`
        -- One row per lease source: what its last scan found, for a fast start and for
        -- "new since last scan". payload is JSON { environments, leases, problems } as the
        -- inventory carries them; headlines is JSON { leaseId: headline } for the next comparison.
        CREATE TABLE IF NOT EXISTS source_inventories (
          source_id            TEXT PRIMARY KEY,
          generated_at         TEXT NOT NULL,
          payload              TEXT NOT NULL,
          headlines            TEXT NOT NULL,
          new_since_last_scan  TEXT NOT NULL
        ) STRICT;

        -- The scan-wide part of the last inventory: request count, untracked sandboxes and the
        -- health of each listing, plus which sources it covered. A single row.
        CREATE TABLE IF NOT EXISTS last_scan (
          id            INTEGER PRIMARY KEY CHECK (id = 1),
          generated_at  TEXT NOT NULL,
          requests      INTEGER NOT NULL,
          source_ids    TEXT NOT NULL,
          payload       TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
];

/** Appended after the action engine's version 2: background saves write an inventory in chunks. */
export const INVENTORY_CHUNK_MIGRATIONS: readonly Migration[] = [
  {
    version: 3,
    name: "inventory payload in chunks by generation",
    up(db) {
      db.exec(`
        -- Every background save of an inventory takes a new generation id (never reused) and writes
        -- each source's payload JSON as consecutive pieces under it; a source row names the generation
        -- its payload is in (NULL: the payload column holds it whole, as a synchronous save writes it).
        -- A source row switches generation only in the save's last, small transaction, so a save that
        -- stops half-way leaves the previous inventory whole; pieces no row names are swept later.
        CREATE TABLE IF NOT EXISTS inventory_generations (
          id          INTEGER PRIMARY KEY AUTOINCREMENT,
          started_at  TEXT NOT NULL
        ) STRICT;

        CREATE TABLE IF NOT EXISTS inventory_chunks (
          generation  INTEGER NOT NULL,
          source_id   TEXT NOT NULL,
          seq         INTEGER NOT NULL,
          data        TEXT NOT NULL,
          PRIMARY KEY (generation, source_id, seq)
        ) STRICT;
      `);
      const columns = db.prepare("PRAGMA table_info(source_inventories)").all() as { name: string }[];
      if (!columns.some((column) => column.name === "generation"))
        db.exec("ALTER TABLE source_inventories ADD COLUMN generation INTEGER");
    },
  },
];
