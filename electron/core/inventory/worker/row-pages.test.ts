import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../../shared/domain/listed-environment.js";
import { reconcile, summarizeCounts } from "../../../../shared/domain/reconcile.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import type { RowsPage } from "./protocol.js";
import { type KeeperOverStore, storedGeneratedWorld } from "./testing/keeper-over-store.js";

describe("every stored row, a page at a time", () => {
  let held: KeeperOverStore;
  let whole: Inventory;

  beforeAll(async () => {
    // The same world read through a second source too, so pages cross from one source into the next.
    ({ held, whole } = await storedGeneratedWorld(800, (world) => ({
      ...world,
      leases: [
        ...world.leases,
        ...world.leases.slice(0, 300).map((row) => ({ ...row, sourceId: "second-source" })),
      ],
    })));
  });
  afterAll(() => held.close());

  const page = async (
    request: Omit<Extract<Parameters<typeof held.keeper.handle>[0], { type: "rows-page" }>, "type">,
  ) => (await held.keeper.handle({ type: "rows-page", ...request })) as RowsPage | null;

  async function allPages(limit: number, environmentId?: string) {
    const scope = environmentId === undefined ? {} : { environmentId };
    const first = (await page({ scan: null, after: null, limit, ...scope }))!;
    const rows = [...first.rows];
    let pages = 1;
    for (let at = first; at.next !== null; pages++) {
      at = (await page({ scan: first.scan, after: at.next, limit, ...scope }))!;
      expect(at.rows.length).toBeLessThanOrEqual(limit);
      expect(at.first).toBeUndefined();
      rows.push(...at.rows);
    }
    return { first, rows, pages };
  }

  it("gives the whole inventory's rows in its order, whatever the page size, and counts them by headline", async () => {
    expect(
      new Set(whole.leases.map((row) => row.sourceId)).size,
      "rows of more than one source",
    ).toBeGreaterThan(1);
    for (const limit of [1, 97, 5000]) {
      const { first, rows, pages } = await allPages(limit);
      expect(rows).toEqual(whole.leases);
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(whole.leases.length / limit));
      expect(first.first?.counts).toEqual(summarizeCounts(whole.leases));
      expect(first.first?.inventory).toEqual({ ...whole, leases: [] });
    }
  });

  it("gives one environment's rows and counts only", async () => {
    const environmentId = listedEnvironmentId(
      whole.leases.find((row) => listedEnvironmentId(row) !== null)!,
    )!;
    const under = whole.leases.filter((row) => listedEnvironmentId(row) === environmentId);
    expect(under.length).toBeGreaterThan(1);
    const { first, rows } = await allPages(13, environmentId);
    expect(rows).toEqual(under);
    expect(first.first?.counts).toEqual(summarizeCounts(under));
  });

  it("answers null for a page of a scan the store no longer holds, so two inventories' rows never mix", async () => {
    const first = (await page({ scan: null, after: null, limit: 10 }))!;
    await held.keeper.handle({ type: "accept", inventory: reconcile(generatedWorldInput({ size: 200 })) });
    expect(await page({ scan: first.scan, after: first.next, limit: 10 })).toBeNull();
  });
});
