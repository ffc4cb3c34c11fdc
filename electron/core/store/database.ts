import { mkdirSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { CoreError } from "../errors/core-error.js";
import { type Database, MIGRATIONS, type Migration } from "./sqlite/migrations/index.js";

export const DATABASE_FILE_NAME = "leasekeeper.db";

/**
 * Each connection's page cache, in KiB. better-sqlite3 is built with 16,000, eight times SQLite's own
 * default; with 4,000 on main's connection and the inventory worker's, a 100,000-lease scan peaked 49 and
 * 78 MB lower in two pairs of runs, and no slower (decision 298).
 */
export const PAGE_CACHE_KIB = 4000;

/**
 * Opens (creating if needed) `<dataDir>/leasekeeper.db`: WAL so a reader never blocks the writer,
 * foreign keys enforced, and every pending migration applied before anything else touches it.
 */
export function openDatabase(dataDir: string, migrations: readonly Migration[] = MIGRATIONS): Database {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, DATABASE_FILE_NAME);
  let db: Database;
  try {
    db = new BetterSqlite3(file);
  } catch {
    throw new CoreError("store", "unopenable", `Cannot open the Leasekeeper database at ${file}.`);
  }
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    migrate(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * A database in memory with every migration applied, for a holder that keeps nothing on disk (a host
 * run without a data directory): the inventory lives in a store either way (decision 222).
 */
export function openMemoryDatabase(migrations: readonly Migration[] = MIGRATIONS): Database {
  const db = new BetterSqlite3(":memory:");
  db.pragma("foreign_keys = ON");
  migrate(db, migrations);
  return db;
}

/**
 * Applies every listed migration the database has not recorded yet, in version order, and returns the
 * versions applied now. Modules may open the same file with different lists (the store's own, or the
 * store's plus the action engine's): versions a caller does not list are left alone, never an error.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  checkOrder(migrations);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    applied_at  TEXT NOT NULL
  ) STRICT`);
  const applied = new Set(
    (db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map(
      (row) => row.version,
    ),
  );
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  const done: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      migration.up(db);
      record.run(migration.version, migration.name, new Date().toISOString());
    })();
    done.push(migration.version);
  }
  return done;
}

/** Versions are positive integers, each used once, listed in increasing order. */
function checkOrder(migrations: readonly Migration[]): void {
  let previous = 0;
  for (const migration of migrations) {
    if (!Number.isInteger(migration.version) || migration.version <= previous) {
      throw new CoreError(
        "store",
        "bad-migrations",
        `Migration "${migration.name}" has version ${migration.version}; versions must be increasing integers from 1.`,
      );
    }
    previous = migration.version;
  }
}
