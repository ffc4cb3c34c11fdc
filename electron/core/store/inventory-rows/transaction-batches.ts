import type { Database } from "../sqlite/migrations/index.js";

/** Writes per short transaction: each is a few milliseconds of lock. */
const WRITES_PER_TRANSACTION = 500;
/** Transactions between two passive WAL checkpoints (a checkpoint left to SQLite copies 4 MB at once). */
const TRANSACTIONS_PER_CHECKPOINT = 8;

/**
 * Runs writes in short transactions, with a passive checkpoint every few: the main thread's own writers
 * on the same WAL file (the journal, the audit log) never wait long behind a scan's writes. Inside a
 * caller's own transaction (a save at once) the writes are simply part of it.
 */
export class TransactionBatches {
  readonly #db: Database;
  /** True while a transaction this opened is open. */
  #open = false;
  #writes = 0;
  #transactions = 0;

  constructor(db: Database) {
    this.#db = db;
  }

  /** True when the next write begins a transaction. */
  get starting(): boolean {
    return !this.#open;
  }

  run<T>(write: () => T): T {
    if (!this.#open) {
      if (this.#db.inTransaction) return write();
      // IMMEDIATE: the write lock is taken first, so what a write reads is not changed before it writes.
      this.#db.exec("BEGIN IMMEDIATE");
      this.#open = true;
    }
    const result = write();
    this.#writes += 1;
    if (this.#writes >= WRITES_PER_TRANSACTION) this.#commit();
    return result;
  }

  /** Commits the batch under way, if any. */
  end(): void {
    if (this.#open) this.#commit();
  }

  /** Rolls back a batch left open by a write that threw (never a caller's own transaction). */
  abandon(): void {
    if (this.#open && this.#db.inTransaction) this.#db.exec("ROLLBACK");
    this.#open = false;
    this.#writes = 0;
  }

  #commit(): void {
    this.#db.exec("COMMIT");
    this.#open = false;
    this.#writes = 0;
    this.#transactions += 1;
    if (this.#transactions % TRANSACTIONS_PER_CHECKPOINT === 0) this.#db.pragma("wal_checkpoint(PASSIVE)");
  }
}
