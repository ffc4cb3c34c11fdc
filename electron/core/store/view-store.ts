import { type InventoryView, isCurrentView } from "../../../shared/contract/index.js";
import type { Database } from "./sqlite/migration.js";

/**
 * The compact view of the last stored inventory, written by the inventory worker after each save (keys
 * already taken out), so a host shows the table at start from one read on main, without waiting for the
 * worker to load and judge the whole inventory again. A view is shown only while it belongs to the
 * inventory the store holds: a save that did not write one (`leasekeeper scan`) makes it stale.
 */
export class ViewStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Keeps `view`, the UTF-8 JSON of the view of the inventory scanned at `generatedAt`, as the text it
   * is: SQLite reads a blob cast to text as UTF-8 as it stands, so what is kept is what storing the
   * view's `JSON.stringify` kept before, and a view kept either way is read back the same.
   */
  save(generatedAt: string, view: Uint8Array): void {
    this.#db
      .prepare(
        `INSERT INTO last_view (id, generated_at, view) VALUES (1, ?, CAST(? AS TEXT))
         ON CONFLICT (id) DO UPDATE SET generated_at = excluded.generated_at, view = excluded.view`,
      )
      .run(generatedAt, Buffer.from(view.buffer, view.byteOffset, view.byteLength));
  }

  /**
   * The view of the stored inventory as the UTF-8 JSON kept, unparsed and unchecked (main holds these
   * bytes and reads only the text around the lease columns), or null when there is none or it belongs to
   * another inventory.
   */
  loadBytes(): Uint8Array | null {
    const row = this.#db
      .prepare(
        `SELECT CAST(v.view AS BLOB) AS view FROM last_view v JOIN last_scan s ON s.id = 1
          WHERE v.id = 1 AND v.generated_at = s.generated_at`,
      )
      .get() as { view: Buffer } | undefined;
    if (row === undefined) return null;
    return new Uint8Array(row.view.buffer, row.view.byteOffset, row.view.byteLength);
  }

  /** The view of the stored inventory, or null when there is none or it belongs to another inventory. */
  load(): InventoryView | null {
    const row = this.#db
      .prepare(
        `SELECT v.view AS view FROM last_view v JOIN last_scan s ON s.id = 1
          WHERE v.id = 1 AND v.generated_at = s.generated_at`,
      )
      .get() as { view: string } | undefined;
    if (row === undefined) return null;
    const view = JSON.parse(row.view) as InventoryView;
    // A view kept under an older shape is not shown: the worker's own replaces it.
    return isCurrentView(view) ? view : null;
  }
}
