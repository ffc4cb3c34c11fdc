import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LeaseViewRow } from "../../../../shared/contract/index.js";
import type { Headline } from "../../../../shared/domain/codes.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { openMemoryDatabase } from "../database.js";
import { saveInventoryRows } from "../inventory-save.js";
import type { Database } from "../sqlite/migrations/index.js";
import { storedLease } from "../testing/stored-lease.js";
import { StoredInventory } from "./stored-inventory.js";

// The table's view is put together again from the live rows' stored view after every scan and at every
// start. Each row is as wide as its whole JSON, so a read that goes from the index to the row for each
// one reads a page of the table per row: the view rows are read from the index on the live rows alone.

const HEADLINES: Headline[] = ["ok", "stale", "closed", "leaking", "closed", "foreign"];

function inventoryOf(count: number): Inventory {
  return {
    generatedAt: "2026-12-04T00:00:00.000Z",
    requests: 1,
    environments: [],
    leases: Array.from({ length: count }, (_, n) =>
      storedLease("a", `lease-${String(n).padStart(3, "0")}`, HEADLINES[n % HEADLINES.length]!, {
        lease: { environmentId: n % 2 === 0 ? "env-even" : "env-odd" },
      }),
    ),
    untracked: [],
    untrackedUncertain: [],
    companies: [],
    gaps: [],
    problems: [],
    origins: [],
  };
}

/** The database, with every statement it prepares recorded as it is prepared. */
function recording(db: Database): { db: Database; prepared: string[] } {
  const prepared: string[] = [];
  const proxy = new Proxy(db, {
    get(target, key) {
      if (key === "prepare")
        return (sql: string) => {
          prepared.push(sql);
          return target.prepare(sql);
        };
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, prepared };
}

describe("the live rows' view read back", () => {
  let db: Database;

  beforeEach(() => {
    db = openMemoryDatabase();
  });

  afterEach(() => {
    db.close();
  });

  it("is every row that is not closed, in source order, and of one environment when asked", () => {
    const inventory = inventoryOf(30);
    const { stored } = saveInventoryRows(db, inventory, ["a"]);
    const rows = new StoredInventory(db);
    const live = inventory.leases.filter((row) => row.verdict.headline !== "closed");

    const all: LeaseViewRow[] = [];
    expect(rows.forEachLiveViewRow(stored, (row) => all.push(row))).toBe(true);
    expect(all.map((row) => row[5])).toEqual(live.map((row) => row.lease.id));

    const even: LeaseViewRow[] = [];
    expect(rows.forEachLiveViewRow(stored, (row) => even.push(row), "env-even")).toBe(true);
    expect(even.map((row) => row[5])).toEqual(
      live.filter((row) => row.lease.environmentId === "env-even").map((row) => row.lease.id),
    );
  });

  it("is read from the index on the live rows alone, never from the table's rows", () => {
    const { stored } = saveInventoryRows(db, inventoryOf(12), ["a"]);
    const { db: watched, prepared } = recording(db);
    new StoredInventory(watched).forEachLiveViewRow(stored, () => undefined);
    const viewReads = prepared.filter((sql) => sql.includes("SELECT view_row FROM inventory_rows"));
    expect(viewReads).toHaveLength(2);

    for (const sql of viewReads) {
      const parameters = (sql.match(/\?/g) ?? []).map(() => "a");
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]).map(
        (step) => step.detail,
      );
      expect(plan).toEqual([
        expect.stringMatching(/^SEARCH inventory_rows USING COVERING INDEX inventory_rows_live /),
      ]);
    }
  });
});
