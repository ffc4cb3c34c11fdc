import type { Inventory } from "../../../../../shared/domain/inventory.js";
import { reconcile } from "../../../../../shared/domain/reconcile.js";
import { tempDir } from "../../../../../test/fixtures/leasekeeper.js";
import { SecretRedactor } from "../../../redaction/redactor.js";
import { openDatabase, openMemoryDatabase } from "../../../store/database.js";
import { JudgedInventoryStore } from "../../../store/judged-inventory-store.js";
import type { Database } from "../../../store/sqlite/migrations/index.js";
import { ViewStore } from "../../../store/view-store.js";
import { generatedWorldInput } from "../../testing/generated-world.js";
import { InventoryKeeper } from "../inventory-keeper.js";
import type { SharedViews } from "../ports.js";
import type { Accepted } from "../protocol.js";

/** A keeper as the worker's thread builds one, over a store of its own, with what it said unasked. */
export interface KeeperOverStore {
  keeper: InventoryKeeper;
  db: Database;
  redactor: SecretRedactor;
  failures: string[];
  replaced: Accepted[];
  close(): Promise<void>;
}

/**
 * An inventory keeper over its own store: in a temporary data directory (`onDisk`, for a test that opens
 * the same file again, as the CLI or a restarted worker would) or in memory, as a worker with no data
 * directory keeps it. The views it writes for the next start are kept only with `keepViews`.
 */
export async function keeperOverStore(
  options: {
    onDisk?: boolean;
    redactor?: SecretRedactor;
    shared?: SharedViews;
    db?: Database;
    /** Keep each view the keeper writes for the next start in the store, as the worker's thread does. */
    keepViews?: boolean;
  } = {},
): Promise<KeeperOverStore & { dir: string | null }> {
  const disk =
    options.db === undefined && options.onDisk === true ? await tempDir("leasekeeper-keeper-") : null;
  const db = options.db ?? (disk === null ? openMemoryDatabase() : openDatabase(disk.dir));
  const redactor = options.redactor ?? new SecretRedactor();
  const failures: string[] = [];
  const replaced: Accepted[] = [];
  const keeper = new InventoryKeeper(
    new JudgedInventoryStore(db, (value) => redactor.redactDeep(value)),
    redactor,
    (failure) => failures.push(failure.message),
    options.keepViews === true ? new ViewStore(db) : null,
    options.shared ?? null,
    (accepted) => replaced.push(accepted),
  );
  return {
    keeper,
    db,
    dir: disk?.dir ?? null,
    redactor,
    failures,
    replaced,
    async close() {
      await keeper.handle({ type: "close" });
      if (options.db === undefined) db.close();
      await disk?.cleanup();
    },
  };
}

/**
 * A keeper over a store in memory holding a generated world of `size` rows, as a scan would have left
 * it, and that world's whole inventory read back: what a test of a read from the store compares with.
 */
export async function storedGeneratedWorld(
  size: number,
  world: (inventory: Inventory) => Inventory = (inventory) => inventory,
): Promise<{ held: KeeperOverStore; whole: Inventory }> {
  const held = await keeperOverStore();
  await held.keeper.handle({ type: "accept", inventory: world(reconcile(generatedWorldInput({ size }))) });
  const whole = (await held.keeper.handle({ type: "inventory" })) as Inventory;
  return { held, whole };
}
