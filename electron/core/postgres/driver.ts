import type pg from "pg";

// Loading `pg` took 100–150 ms of a start on main and again on the inventory worker, whatever the config
// named. Only a Paperclip database source, a team's store and a repair's write connection use it, so it
// is loaded the first time one of them makes a pool or a client, and a start with none (the demo, a
// REST or ledger source over SQLite) never loads it. Every build keeps `pg` external, so this import
// stays a load from node_modules at run time.
let loading: Promise<typeof pg> | undefined;

/** The PostgreSQL driver, loaded once, on first use. */
export function postgresDriver(): Promise<typeof pg> {
  loading ??= import("pg").then((module) => module.default);
  return loading;
}
