import { afterEach, describe, expect, it } from "vitest";
import {
  decodeInventoryRows,
  encodeInventory,
  type HistoryPage,
  HistoryPageSchema,
  type LeaseRowView,
} from "../../../../shared/contract/index.js";
import { PROVIDER_CODES } from "../../../../shared/domain/codes.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { reconcile } from "../../../../shared/domain/reconcile.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import type { Accepted } from "./protocol.js";
import { keeperOverStore } from "./testing/keeper-over-store.js";

/** A cold scan of a generated world: every source read and judged from nothing. */
const coldScan = (): Inventory => reconcile(generatedWorldInput({ size: 3000, seed: "history-pages" }));

/**
 * The closed rows the cold scan reports, decoded as the table decodes them, in the documented page
 * order: newest closed first (the later of releasedAt and a Leasekeeper job's time, else last used),
 * ties in inventory order.
 */
function expectedHistory(inventory: Inventory): LeaseRowView[] {
  const rows = decodeInventoryRows(encodeInventory(inventory));
  const closedAt = (at: number) => {
    const { lease, provider } = inventory.leases[at]!;
    const times = [lease.releasedAt, provider.actedOnBy?.at]
      .map((iso) => (iso ? Date.parse(iso) : 0))
      .filter((ms) => ms > 0);
    return times.length > 0 ? Math.max(...times) : Date.parse(lease.lastUsedAt);
  };
  return rows
    .map((row, at) => ({ row, at, closedAt: closedAt(at) }))
    .filter(({ row }) => row.headline === "closed")
    .sort((a, b) => b.closedAt - a.closedAt || a.at - b.at)
    .map(({ row }) => row);
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A keeper holding the inventory in its store, history read back from there by SQL (decision 222). */
async function keeperHolding(inventory: Inventory) {
  const kept = await keeperOverStore({ onDisk: true });
  cleanups.push(() => kept.close());
  const { keeper } = kept;
  const accepted = (await keeper.handle({ type: "accept", inventory })) as Accepted;
  const page = async (request: Partial<Parameters<typeof pageRequest>[0]> = {}) =>
    HistoryPageSchema.parse(await keeper.handle({ type: "history-page", page: pageRequest(request) }));
  return { keeper, accepted, page };
}

function pageRequest(request: {
  offset?: number;
  limit?: number;
  environmentId?: string | null;
  sourceId?: string;
  search?: string;
  providers?: (typeof PROVIDER_CODES)[number][];
  generation?: number;
}) {
  return { environmentId: null, offset: 0, limit: 100, ...request };
}

const rowsOf = (page: HistoryPage) => decodeInventoryRows(page.rows);

describe("history pages, read from the store the inventory is kept in", () => {
  it("gives, page after page, exactly the closed rows a cold scan reports, in order", async () => {
    const inventory = coldScan();
    const expected = expectedHistory(inventory);
    expect(expected.length, "the generated world has history").toBeGreaterThan(100);
    const { accepted, page } = await keeperHolding(inventory);
    expect(accepted.view.history.count).toBe(expected.length);

    const shown: LeaseRowView[] = [];
    for (let offset = 0; offset < expected.length; offset += 23) {
      const next = await page({ offset, limit: 23, generation: accepted.generation });
      expect(next).toMatchObject({
        total: expected.length,
        offset,
        stale: false,
        generation: accepted.generation,
      });
      shown.push(...rowsOf(next));
    }
    expect(shown).toEqual(expected);
  });

  it("answers a page past the end with no rows and the same total", async () => {
    const inventory = coldScan();
    const { page } = await keeperHolding(inventory);
    const total = expectedHistory(inventory).length;
    const past = await page({ offset: total, limit: 100 });
    expect(past.total).toBe(total);
    expect(past.rows.leases.leaseId).toEqual([]);
    expect((await page({ offset: total + 5000 })).rows.leases.leaseId).toEqual([]);
  });

  it("says a page is stale when it was asked for the view of another generation", async () => {
    const inventory = coldScan();
    const { keeper, accepted, page } = await keeperHolding(inventory);
    const newer = (await keeper.handle({ type: "accept", inventory })) as Accepted;
    expect(newer.generation).toBeGreaterThan(accepted.generation);
    const old = await page({ generation: accepted.generation });
    expect(old).toMatchObject({ stale: true, generation: newer.generation });
    expect((await page({ generation: newer.generation })).stale).toBe(false);
  });

  it("cuts pages to an environment, the search and the provider chips, and counts providers before their chips", async () => {
    const inventory = coldScan();
    const expected = expectedHistory(inventory);
    const { page } = await keeperHolding(inventory);
    const [first] = expected;
    const inScope = expected.filter(
      (row) => row.sourceId === first!.sourceId && row.environmentId === first!.environmentId,
    );
    const scoped = await page({
      environmentId: first!.environmentId,
      sourceId: first!.sourceId,
      limit: 500,
    });
    expect(rowsOf(scoped)).toEqual(inScope.slice(0, 500));

    const found = await page({ search: `  ${first!.leaseId.toUpperCase()} ` });
    expect(rowsOf(found).map((row) => row.leaseId)).toEqual([first!.leaseId]);

    const everything = await page({ limit: 0 });
    expect(everything.rows.leases.leaseId).toEqual([]);
    const byProvider = PROVIDER_CODES.map((code) => expected.filter((row) => row.provider === code).length);
    expect(everything.providerCounts).toEqual(byProvider);
    const provider = PROVIDER_CODES[byProvider.findIndex((count) => count > 0)]!;
    const chipped = await page({ providers: [provider], limit: 500 });
    expect(chipped.total).toBe(byProvider[PROVIDER_CODES.indexOf(provider)]);
    expect(chipped.providerCounts).toEqual(byProvider);
    expect(rowsOf(chipped).every((row) => row.provider === provider)).toBe(true);
  });

  it("answers nothing while the worker holds no inventory", async () => {
    const kept = await keeperOverStore();
    cleanups.push(() => kept.close());
    const { keeper } = kept;
    expect(await keeper.handle({ type: "history-page", page: pageRequest({}) })).toBeNull();
  });
});
