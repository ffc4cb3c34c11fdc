import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KeptScanMemory } from "../../inventory/judge/ports.js";
import { openMemoryDatabase } from "../database.js";
import type { Database } from "../sqlite/migrations/index.js";
import {
  type ScanMemoryEntry as KeptEntry,
  type ScanMemoryEntries as KeptListing,
  keepScanMemory,
  readKeptScanMemory,
} from "./kept-scan-memory.js";
import { InventoryScanWrite } from "./scan-write.js";

// The memory a scan keeps beside its rows, for a process started again over the same store: it must
// stand for exactly the rows that scan flipped, and its listing must be what the scan listed whether it
// was written whole or as the entries changed since the last one kept.

const ORIGIN = "https://api.createos.example";
const OTHER = "https://legacy.createos.example";

/** Flips an empty scan of these sources, as a scan or a job's mark does; returns its generation. */
function flip(db: Database, sourceIds: readonly string[]): number {
  const write = InventoryScanWrite.begin(db, sourceIds);
  for (const sourceId of sourceIds) write.beginSource(sourceId, "whole");
  for (const sourceId of sourceIds) write.endSource(sourceId, { environments: [], problems: [] });
  return write.flip({ generatedAt: new Date().toISOString(), requests: 0, payload: {} }).stored.generation;
}

function memoryOf(generation: number, origins: KeptScanMemory["origins"] = [[ORIGIN, null]]): KeptScanMemory {
  return {
    generation,
    salt: "salt-check",
    sources: [
      {
        sourceId: "paperclip",
        identity: "keyed-identity",
        environments: [["env-1", "v1"]],
        plugin: "0.3.1",
        problems: [],
        readUpTo: { watermark: "2026-12-06T04:00:00.000Z", changedRows: 3, fullPass: false },
        lastFullPassAt: 1_765_000_000_000,
        scansSinceFullPass: 2,
      },
    ],
    origins,
    marked: [[ORIGIN, "sb-marked"]],
  };
}

function listing(after: number | null, changed: KeptEntry[], whole: KeptEntry[]): KeptListing {
  return { after, changed: () => changed, whole: () => whole };
}

/** The kept listing as plain entries, for comparing. */
function entriesOf(db: Database): Record<string, Record<string, unknown>> | null {
  const kept = readKeptScanMemory<KeptScanMemory>(db);
  if (kept === null) return null;
  return Object.fromEntries(
    [...kept.listing].map(([origin, { sandboxes }]) => [origin, Object.fromEntries(sandboxes)]),
  );
}

describe("a scan's memory kept beside its rows", () => {
  let db: Database;
  beforeEach(() => {
    db = openMemoryDatabase();
  });
  afterEach(() => db.close());

  it("is read back as kept while the store's sources hold the rows that scan flipped", () => {
    const generation = flip(db, ["paperclip"]);
    const memory = memoryOf(generation, [
      [ORIGIN, null],
      [OTHER, "unauthorized"],
    ]);
    keepScanMemory(
      db,
      memory,
      listing(
        null,
        [],
        [
          [ORIGIN, "sb-1", "d1"],
          [ORIGIN, "sb-2", "d2"],
        ],
      ),
    );

    const kept = readKeptScanMemory<KeptScanMemory>(db);
    expect(kept?.memory).toEqual(memory);
    expect(kept?.listing.get(OTHER)).toEqual({ failure: "unauthorized", sandboxes: new Map() });
    expect(entriesOf(db)).toEqual({ [ORIGIN]: { "sb-1": "d1", "sb-2": "d2" }, [OTHER]: {} });
  });

  it("stands no longer once another scan, a job's mark or a whole save flipped over the sources", () => {
    const generation = flip(db, ["paperclip"]);
    keepScanMemory(db, memoryOf(generation), listing(null, [], [[ORIGIN, "sb-1", "d1"]]));
    expect(readKeptScanMemory(db)).not.toBeNull();

    flip(db, ["paperclip"]);
    expect(readKeptScanMemory(db)).toBeNull();
  });

  it("stands no longer when the store's scan covers a source the memory's scan did not flip", () => {
    const generation = flip(db, ["paperclip"]);
    keepScanMemory(db, memoryOf(generation), listing(null, [], []));
    // Another writer's scan of two sources, whose stamps both differ.
    flip(db, ["paperclip", "ledger"]);
    expect(readKeptScanMemory(db)).toBeNull();
  });

  it("writes only the entries changed since the memory it kept last, and every entry when that one is gone", () => {
    const first = flip(db, ["paperclip"]);
    keepScanMemory(
      db,
      memoryOf(first),
      listing(
        null,
        [],
        [
          [ORIGIN, "sb-1", "d1"],
          [ORIGIN, "sb-2", "d2"],
          [ORIGIN, "sb-3", "d3"],
        ],
      ),
    );

    // The next scan changed one entry, listed one more and no longer lists one.
    const second = flip(db, ["paperclip"]);
    const untouchedWhole: KeptEntry[] = [[ORIGIN, "never-read", "x"]];
    keepScanMemory(
      db,
      memoryOf(second),
      listing(
        first,
        [
          [ORIGIN, "sb-2", "d2b"],
          [ORIGIN, "sb-4", "d4"],
          [ORIGIN, "sb-3", null],
        ],
        untouchedWhole,
      ),
    );
    expect(entriesOf(db)).toEqual({ [ORIGIN]: { "sb-1": "d1", "sb-2": "d2b", "sb-4": "d4" } });

    // A memory counted from a generation the store no longer keeps: every entry is written again.
    const third = flip(db, ["paperclip"]);
    keepScanMemory(
      db,
      memoryOf(third),
      listing(first, [[ORIGIN, "sb-9", "never-written"]], [[ORIGIN, "sb-5", "d5"]]),
    );
    expect(entriesOf(db)).toEqual({ [ORIGIN]: { "sb-5": "d5" } });
  });

  it("is not read when what is kept cannot be read, or names no origin an entry is kept under", () => {
    const generation = flip(db, ["paperclip"]);
    keepScanMemory(db, memoryOf(generation), listing(null, [], [[OTHER, "sb-1", "d1"]]));
    expect(readKeptScanMemory(db)).toBeNull();

    keepScanMemory(db, memoryOf(generation), listing(null, [], [[ORIGIN, "sb-1", "d1"]]));
    expect(readKeptScanMemory(db)).not.toBeNull();
    db.prepare("UPDATE scan_memory SET memory = '{\"generation\":' WHERE id = 1").run();
    expect(readKeptScanMemory(db)).toBeNull();
  });

  it("keeps a ledger's sealed digests under the token its source's memory names, and reads no other", () => {
    const generation = flip(db, ["paperclip"]);
    const withItems = (token: string | undefined): KeptScanMemory => {
      const memory = memoryOf(generation);
      const [source] = memory.sources;
      return { ...memory, sources: [{ ...source!, ...(token === undefined ? {} : { ledgerItems: token }) }] };
    };
    const sealed = Uint8Array.from([1, 2, 3, 250]);
    const entries = listing(null, [], [[ORIGIN, "sb-1", "d1"]]);
    keepScanMemory(db, withItems("token-1"), entries, [{ sourceId: "paperclip", token: "token-1", sealed }]);
    expect([...readKeptScanMemory<KeptScanMemory>(db)!.ledgerItems]).toEqual([
      ["paperclip", Buffer.from(sealed)],
    ]);

    // Kept again naming the same token (a job's mark, a rescan that changed no item): written once.
    keepScanMemory(db, withItems("token-1"), entries);
    expect(readKeptScanMemory<KeptScanMemory>(db)!.ledgerItems.get("paperclip")).toEqual(Buffer.from(sealed));

    // A memory naming another sealing than the one kept reads none; one naming none deletes it.
    keepScanMemory(db, withItems("token-2"), entries);
    expect(readKeptScanMemory<KeptScanMemory>(db)!.ledgerItems.size).toBe(0);
    keepScanMemory(db, withItems(undefined), entries);
    expect(db.prepare("SELECT count(*) FROM scan_memory_ledger_items").pluck().get()).toBe(0);
  });
});
