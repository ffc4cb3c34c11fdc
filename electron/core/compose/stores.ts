import type { LeasekeeperConfig } from "../config/load.js";
import { type Database, openDatabase, SqliteJanitorTaken } from "../store/index.js";
import { type SharedStore, sharedStoreFor } from "../store/postgres/shared-store.js";

/**
 * What the core keeps, opened once: the data directory's SQLite file on one connection for everything
 * on the main thread (the inventory cache's reads, the journal, the audit log, claims, proofs and
 * quarantines; the inventory worker holds the only other, since a connection cannot cross threads), and
 * the team's store when the config names one (connected on first use).
 */
export interface CoreStores {
  readonly database: Database | null;
  readonly shared: SharedStore | null;
  /**
   * The plans a janitor's rules took, where the engine's journal and audit log are: the team's store
   * when there is one, so its watchers count and resume them together; null with neither store.
   */
  readonly janitorTaken: SharedStore["janitorTaken"] | null;
  close(): Promise<void>;
}

export function openStores(config: LeasekeeperConfig, env: NodeJS.ProcessEnv, persist: boolean): CoreStores {
  const database = persist ? openDatabase(config.dataDir) : null;
  const shared = sharedStoreFor(config, env);
  return {
    database,
    shared,
    janitorTaken: shared?.janitorTaken ?? (database === null ? null : new SqliteJanitorTaken(database)),
    async close() {
      await shared?.close().catch(() => undefined);
      database?.close();
    },
  };
}
