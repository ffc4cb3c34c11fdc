import type BetterSqlite3 from "better-sqlite3";

export type Database = BetterSqlite3.Database;

/**
 * Every schema change, in order. To change the schema, append an entry with the next version; never
 * edit or reorder one that has shipped (a database records the versions it has applied). Each `up`
 * runs inside a transaction together with the row that records it, and is written to be harmless if
 * run against a schema that already has its objects (IF NOT EXISTS), so a crash between the two can
 * never wedge a database.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}
