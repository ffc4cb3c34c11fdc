import type { Database } from "better-sqlite3";
import type { SecretRedactor } from "../redaction/redactor.js";
import { InventoryStore } from "./inventory-store.js";

/**
 * The inventory cache, with every configured key taken out of what the sources said before it is
 * written: a key pasted into lease metadata, a failure reason or an environment's name must not reach
 * the SQLite file (nor its -wal) in clear, whatever the screens already withhold.
 */
export class RedactingInventoryStore extends InventoryStore {
  readonly #redactor: SecretRedactor;

  constructor(db: Database, redactor: SecretRedactor) {
    super(db);
    this.#redactor = redactor;
  }

  override saveInBackground(...args: Parameters<InventoryStore["saveInBackground"]>) {
    const [inventory, ...rest] = args;
    return super.saveInBackground(this.#redactor.redactDeep(inventory), ...rest);
  }

  override save(...args: Parameters<InventoryStore["save"]>) {
    const [inventory, ...rest] = args;
    return super.save(this.#redactor.redactDeep(inventory), ...rest);
  }
}
