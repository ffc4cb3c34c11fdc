import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMarkerWorldApp } from "../app/testing/marker-world-app.js";
import type { Core } from "../compose/index.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  marker,
  markerWorld,
  running,
} from "../markers/testing/marker-world.js";
import { DATABASE_FILE_NAME } from "../store/database.js";
import { proveAndRepair } from "./repair-service.js";

// A repair through the composition root once the scan is saved: the worker has let go of the rows and
// reads them back from the store (decision 221). The repair is the one the scan's own inventory gives,
// and it is computed from the row the store holds.

const lostMetadata = markedRow("sb-lost", 21, { metadata: { marker: marker(21) } });
const now = () => new Date("2026-12-01T00:00:00.000Z");

let w: MarkerWorld;
let app: Core;

beforeAll(async () => {
  w = await markerWorld([running("sb-lost", holding(21))], [lostMetadata]);
  app = await openMarkerWorldApp(w);
});

afterAll(async () => {
  await app?.close();
  await w?.stop();
});

const repairThroughTheApp = async () =>
  (await proveAndRepair(app.markers, [{ leaseId: lostMetadata.id }], (id) => app.sources.find(id), now)).map(
    (repair) => repair.outcome,
  );

/** Adds a key to the row's metadata in the store's copy, as only a read of the store would show. */
function editInStore(key: string, value: string): void {
  const db = new Database(path.join(w.dir, "data", DATABASE_FILE_NAME));
  try {
    const changed = db
      .prepare(
        `UPDATE inventory_rows SET data = json_set(data, '$.lease.metadata.${key}', ?) WHERE lease_id = ?`,
      )
      .run(value, lostMetadata.id).changes;
    expect(changed).toBe(1);
  } finally {
    db.close();
  }
}

describe("a repair once the scan is saved and its rows are read back from the store", () => {
  it("is the repair of the scan's own inventory, computed from the row the store holds", async () => {
    await app.inventory.refresh();
    await app.inventory.saved();
    const [scanned] = (
      await proveAndRepair(w.service, [{ leaseId: lostMetadata.id }], () => undefined, now)
    ).map((repair) => repair.outcome);
    expect(scanned).toMatchObject({ ok: true, leaseId: lostMetadata.id });
    if (!scanned?.ok) return;

    editInStore("note", "kept in the store");
    const [fromStore] = await repairThroughTheApp();
    // The same repair, but for the key only the store's copy of the row records.
    expect(fromStore).toEqual({ ...scanned, metadata: { ...scanned.metadata, note: "kept in the store" } });
  });
});
