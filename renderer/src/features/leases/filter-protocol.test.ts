import { afterEach, describe, expect, it, vi } from "vitest";
import { decodeInventoryRows, encodeInventory } from "../../../../shared/contract";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture";
import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import { InventoryRows } from "../../state/inventory-rows";
import { FilterClient, type FilterResult } from "./filter-client";
import { filterColumnsOf } from "./filter-columns";
import {
  buildIndexSlice,
  emptyFilterState,
  type FilterReply,
  type FilterRequest,
  handleFilterRequest,
} from "./filter-protocol";
import type { FilterQuery } from "./filter-query";
import { applyChips, countBy, filterRows } from "./filter-rows";
import { environmentKey } from "./row-model";
import { sortOrder, sortPositions } from "./sort-rows";

const view = encodeInventory(makeInventoryFixture({ rows: 3000, environments: 6, seed: 11 }));
const rows = decodeInventoryRows(view);
const SORT = { column: "lastUsed", desc: true } as const;
const order = sortPositions(view, SORT);
const rowOrder = sortOrder(rows, SORT);
const scope = environmentKey(view.environments[2]!.sourceId, view.environments[2]!.environmentId);

/** A message as a worker receives it: cloned, its listed buffers moved (no longer usable by the sender). */
function across<T>(message: T, transfer: Transferable[] = []): T {
  return structuredClone(message, { transfer });
}

/** The worker's state after the page sent this inventory's columns and the order. */
function loadedWorker() {
  const state = emptyFilterState();
  const { columns, transfer } = filterColumnsOf(view);
  handleFilterRequest(state, across<FilterRequest>({ kind: "columns", inventory: 1, columns }, transfer));
  const positions = order.slice();
  handleFilterRequest(
    state,
    across<FilterRequest>({ kind: "order", inventory: 1, order: 1, positions }, [positions.buffer]),
  );
  return state;
}

function query(
  search: string,
  headlines: Headline[] = [],
  providers: ProviderCode[] = [],
  environment: string | null = null,
): FilterQuery {
  return { environment, search, headlines, providers };
}

/** What the rules over decoded rows show and count for the same query. */
function expected(q: FilterQuery) {
  const headlines = new Set(q.headlines);
  const providers = new Set(q.providers);
  const scoped = filterRows(
    rows,
    { environment: q.environment, headlines: new Set(), providers: new Set(), search: q.search },
    rowOrder,
  );
  return {
    leaseIds: applyChips(scoped, headlines, providers).map((row) => row.leaseId),
    scoped: scoped.length,
    headlineCounts: countBy(
      scoped.filter((row) => providers.size === 0 || providers.has(row.provider)),
      (row) => row.headline,
    ),
    providerCounts: countBy(applyChips(scoped, headlines, new Set()), (row) => row.provider),
  };
}

describe("the search worker's protocol", () => {
  it.each([
    ["no filter", query("")],
    ["a search", query("sb-1")],
    ["a search in one environment", query("4", [], [], scope)],
    ["headline chips", query("", ["stale", "foreign"])],
    ["provider chips with a search", query("a", [], ["running", "gone"])],
    ["both kinds of chip", query("", ["ok", "stale"], ["running"])],
    ["a search that matches nothing", query("zz-no-such-text")],
  ])("answers %s with the positions and counts the row rules give", (_, q) => {
    const state = loadedWorker();
    const reply = handleFilterRequest(
      state,
      across<FilterRequest>({ kind: "query", id: 7, inventory: 1, order: 1, query: q }),
    );
    if (reply?.kind !== "answer") throw new Error(`expected an answer, got ${JSON.stringify(reply)}`);
    const arrived = across(reply, [reply.positions.buffer]);
    const want = expected(q);
    expect(arrived.id).toBe(7);
    expect([...arrived.positions].map((at) => view.leases.leaseId[at])).toEqual(want.leaseIds);
    expect(arrived.scoped).toBe(want.scoped);
    expect(new Map(arrived.headlineCounts)).toEqual(want.headlineCounts);
    expect(new Map(arrived.providerCounts)).toEqual(want.providerCounts);
    // The answer's buffer was moved to the page; the worker's order must still be whole.
    expect(state.positions?.length, "the answer shared a buffer with the worker's order").toBe(order.length);
  });

  it("finds something for the queries above (the comparison is not vacuous)", () => {
    expect(expected(query("sb-1")).leaseIds.length).toBeGreaterThan(0);
    expect(expected(query("4", [], [], scope)).leaseIds.length).toBeGreaterThan(0);
    expect(expected(query("", ["stale", "foreign"])).leaseIds.length).toBeGreaterThan(0);
  });

  it("answers the same whether the index was built in slices between queries or by the search itself", () => {
    const sliced = loadedWorker();
    let slices = 0;
    while (buildIndexSlice(sliced, 0)) slices++;
    expect(slices, "a zero budget still builds one block a slice").toBeGreaterThan(0);
    const q = query("sb-1", [], ["running"]);
    const request: FilterRequest = { kind: "query", id: 1, inventory: 1, order: 1, query: q };
    expect(handleFilterRequest(sliced, request)).toEqual(handleFilterRequest(loadedWorker(), request));
  });

  it("does not answer a query over an inventory or an order it does not hold", () => {
    const state = loadedWorker();
    for (const [inventory, orderId] of [
      [2, 1],
      [1, 2],
    ] as const) {
      expect(
        handleFilterRequest(state, { kind: "query", id: 3, inventory, order: orderId, query: query("") }),
      ).toEqual({
        kind: "unknown",
        id: 3,
        inventory,
      });
    }
    expect(
      handleFilterRequest(emptyFilterState(), {
        kind: "query",
        id: 1,
        inventory: 0,
        order: 0,
        query: query(""),
      })?.kind,
    ).toBe("unknown");
  });
});

/** A Worker that runs the real handler a task later, with messages cloned and transferred as a browser would. */
class FakeWorker extends EventTarget {
  static last: FakeWorker | null = null;
  readonly state = emptyFilterState();
  readonly queries: FilterQuery[] = [];
  constructor() {
    super();
    FakeWorker.last = this;
  }
  postMessage(message: FilterRequest, transfer: Transferable[] = []) {
    const received = structuredClone(message, { transfer });
    if (received.kind === "query") this.queries.push(received.query);
    setTimeout(() => {
      const reply = handleFilterRequest(this.state, received);
      if (reply === null) return;
      const sent: FilterReply = structuredClone(reply, {
        transfer: reply.kind === "answer" ? [reply.positions.buffer] : [],
      });
      this.dispatchEvent(new MessageEvent("message", { data: sent }));
    }, 0);
  }
  terminate() {}
}

describe("the page's side of the worker", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("hands on only the newest query's answer, and skips the queries a newer one replaced", async () => {
    vi.stubGlobal("Worker", FakeWorker);
    const answers: FilterResult[] = [];
    const client = new FilterClient(
      (result) => answers.push(result),
      () => {
        throw new Error("the worker failed");
      },
    );
    const table = new InventoryRows(view);
    for (const typed of ["s", "sb", "sb-", "sb-1"]) client.ask(table, order, query(typed));
    await vi.waitFor(() => expect(answers.length).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // "s" was already in the worker; "sb" and "sb-" were replaced while it ran.
    expect(FakeWorker.last!.queries.map((q) => q.search)).toEqual(["s", "sb-1"]);
    expect(answers).toHaveLength(1);
    const [answer] = answers;
    expect(answer!.query.search).toBe("sb-1");
    expect(answer!.table).toBe(table);
    expect([...answer!.positions].map((at) => view.leases.leaseId[at])).toEqual(
      expected(query("sb-1")).leaseIds,
    );
    client.dispose();
  });
});
