import type { Database } from "better-sqlite3";
import type { SecretRedactor } from "../redaction/redactor.js";
import type { SaveOptions } from "./inventory-save.js";
import { InventoryStore } from "./inventory-store.js";

/**
 * The inventory cache, with every configured key taken out of what the sources said before it is
 * written: a key pasted into lease metadata, a failure reason or an environment's name must not reach
 * the SQLite file (nor its -wal) in clear, whatever the screens already withhold.
 *
 * A row is written when what it is written as differs from what the store holds, and that is compared
 * after the keys are taken out: a row stored before a key was configured, with the key in clear, differs
 * from the same row redacted now, so the next save that covers it writes it again.
 */
export class RedactingInventoryStore extends InventoryStore {
  readonly #redactor: SecretRedactor;

  constructor(db: Database, redactor: SecretRedactor) {
    super(db);
    this.#redactor = redactor;
  }

  override saveInBackground(...args: Parameters<InventoryStore["saveInBackground"]>) {
    const [inventory, sourceIds, options] = args;
    return super.saveInBackground(inventory, sourceIds, this.#redacting(options));
  }

  override save(...args: Parameters<InventoryStore["save"]>) {
    const [inventory, sourceIds, options] = args;
    return super.save(inventory, sourceIds, this.#redacting(options));
  }

  #redacting(options: SaveOptions = {}): SaveOptions {
    return { ...options, redact: <T>(value: T): T => this.#redactor.redactDeep(value) };
  }
}
