import type { Database } from "better-sqlite3";
import type { SecretRedactor } from "../redaction/redactor.js";
import type { SaveOptions } from "./inventory-save.js";
import { InventoryStore } from "./inventory-store.js";

/**
 * The inventory cache, with every configured key taken out of what the sources said before it is
 * written: a key pasted into lease metadata, a failure reason or an environment's name must not reach
 * the SQLite file (nor its -wal) in clear, whatever the screens already withhold.
 *
 * Only the rows a save writes are redacted. The rows it leaves were redacted for the keys of an earlier
 * save, perhaps another process's: the first save of this store, and the first after the keys changed,
 * also writes again every stored row in which a key now configured is found.
 */
export class RedactingInventoryStore extends InventoryStore {
  readonly #redactor: SecretRedactor;
  /**
   * The keys' generation the last save that went through redacted for; null before this store's first.
   * Set only once a save is written: one superseded, or that failed, rewrote nothing.
   */
  #redactedFor: number | null = null;

  constructor(db: Database, redactor: SecretRedactor) {
    super(db);
    this.#redactor = redactor;
  }

  override saveInBackground(...args: Parameters<InventoryStore["saveInBackground"]>) {
    const [inventory, sourceIds, options] = args;
    const keys = this.#redactor.generation;
    return super.saveInBackground(inventory, sourceIds, this.#redacting(keys, options)).then((result) => {
      if (!result.superseded) this.#redactedFor = keys;
      return result;
    });
  }

  override save(...args: Parameters<InventoryStore["save"]>) {
    const [inventory, sourceIds, options] = args;
    const keys = this.#redactor.generation;
    const result = super.save(inventory, sourceIds, this.#redacting(keys, options));
    this.#redactedFor = keys;
    return result;
  }

  /**
   * The options of a save asked for while the keys are `keys`. When the stored rows may hold a key now
   * configured (the store's first save, or the keys changed since the last save that went through), the
   * rows whose JSON contains one are written again; every row when a key cannot be looked for in JSON.
   */
  #redacting(keys: number, options: SaveOptions = {}): SaveOptions {
    const redact = <T>(value: T): T => this.#redactor.redactDeep(value);
    if (options.rewriteAll === true || this.#redactedFor === keys || !this.#redactor.active)
      return { ...options, redact };
    if (!this.#redactor.findableInJson) return { ...options, redact, rewriteAll: true };
    const earlier = options.rewriteWhere;
    return {
      ...options,
      redact,
      rewriteWhere: (data) => this.#redactor.contains(data) || earlier?.(data) === true,
    };
  }
}
