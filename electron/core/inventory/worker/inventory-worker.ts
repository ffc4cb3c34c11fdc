import { parentPort, workerData } from "node:worker_threads";
import type { InventoryView } from "../../../../shared/contract/index.js";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import { SecretRedactor } from "../../redaction/redactor.js";
import { JudgedInventoryStore, openDatabase, openMemoryDatabase } from "../../store/index.js";
import type { ScanToKeep } from "../../store/postgres/pg-inventory-cache.js";
import { openPostgresStore, type PostgresStore, sharedStoreFailure } from "../../store/postgres/store.js";
import { ViewStore } from "../../store/view-store.js";
import { HeapWatch, type ThreadRequest, type WatchedSetup } from "./heap-watch.js";
import { failureOf, InventoryKeeper } from "./inventory-keeper.js";
import type { EncodedView, WorkerMessage, WorkerRequest } from "./protocol.js";

/**
 * The inventory worker's thread: reads the sources, judges the rows, saves and encodes, so that none of
 * it holds up the main thread's event loop (IPC, the browser host's HTTP, job progress). Requests are
 * handled in the order they arrive; a scan's `judge` waits for its sources without holding up the rest.
 *
 * This file is the thread's composition point, as `electron/core/compose/` is the main thread's: a
 * connection cannot cross threads, so the thread opens its own stores here and hands them to the keeper
 * through the ports the keeper declares (`KeptInventory`, `KeptViews`, `SharedViews` in
 * inventory-keeper.ts). It is the one file of `inventory/` that imports `store/` (decision 203); nothing
 * imports it, it is only started (`startThread("inventory-worker")`).
 */
const port = parentPort;
if (port === null) throw new Error("the inventory worker runs only as a worker thread");

const setup = workerData as WatchedSetup;
// A second connection to the file main opened (WAL: readers and the one writer do not block each other);
// without a data directory the inventory lives in a database in this thread's memory.
const database = setup.dataDir === null ? openMemoryDatabase() : openDatabase(setup.dataDir);
// This connection writes only the inventory, a cache of the last scan: its commits need not wait for the
// disk (the WAL stays whole; a crash loses at most the last scan's rows, which the next scan writes).
// Main's connection, which writes the journal and the audit log, keeps its own, full durability.
database.pragma("synchronous = NORMAL");
// Connected and migrated on first use (the first save, or the read at start), so a worker without a
// store configured never connects.
const shared = setup.sharedStore ?? null;
let sharedStore: Promise<PostgresStore> | null = null;
const openShared = ({ url, urlEnv, timeoutMs }: NonNullable<typeof shared>) => {
  sharedStore ??= openPostgresStore({ url, urlEnv, timeoutMs });
  // A failed open is tried again by the next use rather than remembered for ever.
  return sharedStore.catch((error: unknown) => {
    sharedStore = null;
    throw error;
  });
};
const sharedViews =
  shared === null
    ? null
    : {
        configuredSources: shared.sourceIds,
        async save(sourceIds: readonly string[], view: InventoryView) {
          const store = await openShared(shared);
          await store.inventoryViews.save(sourceIds, view).catch((error: unknown) => {
            throw sharedStoreFailure(
              "the last view could not be kept in the shared store",
              shared.urlEnv,
              error,
            );
          });
        },
        async saveInventory(sourceIds: readonly string[], scan: ScanToKeep) {
          const store = await openShared(shared);
          await store.inventoryCache.save(sourceIds, scan).catch((error: unknown) => {
            throw sharedStoreFailure(
              "the last inventory could not be kept in the shared store",
              shared.urlEnv,
              error,
            );
          });
        },
        async loadNewer<T>(
          sourceIds: readonly string[],
          than: string | null,
          take: (scan: { inventory: Inventory; pages: AsyncIterable<ClassifiedLease[]> }) => Promise<T>,
        ) {
          try {
            const store = await openShared(shared);
            return (await store.inventoryCache.readNewer(sourceIds, than, take))?.value ?? null;
          } catch (error) {
            throw sharedStoreFailure(
              "the team's last inventory could not be read from the shared store",
              shared.urlEnv,
              error,
            );
          }
        },
      };
const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const redactor = new SecretRedactor();
const keeper = new InventoryKeeper(
  new JudgedInventoryStore(database, (value) => redactor.redactDeep(value)),
  redactor,
  (failure) => post({ id: null, ok: false, failure }),
  setup.dataDir === null ? null : new ViewStore(database),
  sharedViews,
  (accepted) => post({ id: null, ok: true, replaced: accepted }),
);

// The thread's heap, asked by the heap-budget test (watched from the start) and measurements.
const heap = new HeapWatch(setup.watchHeap === true);

port.on("message", (message: { id: number; request: ThreadRequest }) => {
  if (message.request.type === "heap") {
    post({ id: message.id, ok: true, value: heap.report() });
    return;
  }
  const request: WorkerRequest = message.request;
  if (request.type === "listing-pages-from") {
    // A scan's pages, straight from the list-page reader: handled like main's requests, never answered.
    const pages = request.port;
    // Held open by the reader's end, not by this thread (which ends when main closes it).
    pages.unref();
    pages.on("message", (request: WorkerRequest) => {
      keeper
        .handle(request)
        .catch((error: unknown) => post({ id: null, ok: false, failure: failureOf(error) }));
    });
  }
  keeper.handle(request).then(
    async (value) => {
      if (request.type === "close") {
        database.close();
        await (await sharedStore?.catch(() => null))?.close();
        post({ id: message.id, ok: true, value });
        port.close();
        return;
      }
      post({ id: message.id, ok: true, value }, transferred(request, value));
    },
    (error: unknown) => post({ id: message.id, ok: false, failure: failureOf(error) }),
  );
});

/** A view's bytes are moved to main, not copied: main would otherwise read a copy as long as the view. */
function transferred(request: WorkerRequest, value: unknown): ArrayBuffer[] {
  const encoded = request.type === "view-bytes" || request.type === "view";
  return encoded && value !== null ? [(value as EncodedView).bytes] : [];
}
