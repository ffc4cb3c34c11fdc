import type { InventoryRows } from "../../state/inventory-rows";
import { filterColumnsOf } from "./filter-columns";
import type { FilterReply, FilterRequest } from "./filter-protocol";
import { type FilterAnswer, type FilterQuery, queryKey } from "./filter-query";

/** An answer as the page applies it: with the rows, the order and the query it was computed for. */
export interface FilterResult extends FilterAnswer {
  table: InventoryRows;
  order: Int32Array;
  query: FilterQuery;
  key: string;
}

type Asked = Omit<FilterResult, keyof FilterAnswer>;

/**
 * The page's side of the search worker. At most one query is in the worker at a time; a query asked
 * meanwhile waits, and a newer one replaces it, so a burst of keystrokes costs the worker one stale
 * query at most, and only the answer to the newest query is handed on.
 */
export class FilterClient {
  private readonly worker: Worker;
  private inventory = 0;
  private order = 0;
  private nextId = 0;
  private latest = -1;
  private inFlight = false;
  private waiting: FilterRequest | null = null;
  private asked: Asked | null = null;
  private table: InventoryRows | null = null;
  private positions: Int32Array | null = null;

  /** `onFailure`: the worker could not start or stopped (the page then filters by itself). */
  constructor(
    private readonly onAnswer: (result: FilterResult) => void,
    onFailure: () => void,
  ) {
    this.worker = new Worker(new URL("./filter.worker.ts", import.meta.url), {
      type: "module",
      name: "lease-search",
    });
    this.worker.addEventListener("message", (event: MessageEvent<FilterReply>) => this.received(event.data));
    this.worker.addEventListener("error", onFailure);
    this.worker.addEventListener("messageerror", onFailure);
  }

  /** A new inventory: its columns go to the worker once. */
  setTable(table: InventoryRows): void {
    if (table === this.table) return;
    this.table = table;
    this.positions = null;
    this.inventory++;
    const { columns, transfer } = filterColumnsOf(table.view);
    this.post({ kind: "columns", inventory: this.inventory, columns }, transfer);
  }

  /** A new display order (a sort, or a new inventory): a copy goes to the worker, the page keeps its own. */
  setOrder(table: InventoryRows, positions: Int32Array): void {
    this.setTable(table);
    if (positions === this.positions) return;
    this.positions = positions;
    this.order++;
    const copy = positions.slice();
    this.post({ kind: "order", inventory: this.inventory, order: this.order, positions: copy }, [
      copy.buffer,
    ]);
  }

  /** Asks for `query` over these rows in this order; asking again for the newest query does nothing. */
  ask(table: InventoryRows, positions: Int32Array, query: FilterQuery): void {
    const key = queryKey(query);
    const asked = this.asked;
    if (asked?.table === table && asked.order === positions && asked.key === key) return;
    this.setOrder(table, positions);
    const id = this.nextId++;
    this.latest = id;
    this.asked = { table, order: positions, query, key };
    const request: FilterRequest = {
      kind: "query",
      id,
      inventory: this.inventory,
      order: this.order,
      query,
    };
    if (this.inFlight) this.waiting = request;
    else this.send(request);
  }

  dispose(): void {
    this.worker.terminate();
  }

  private send(request: FilterRequest): void {
    this.inFlight = true;
    this.worker.postMessage(request);
  }

  private post(request: FilterRequest, transfer: Transferable[]): void {
    this.worker.postMessage(request, transfer);
  }

  private received(reply: FilterReply): void {
    this.inFlight = false;
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting !== null) this.send(waiting);
    const asked = this.asked;
    if (reply.kind !== "answer" || reply.id !== this.latest || asked === null) return;
    const { kind: _kind, id: _id, inventory: _inventory, ...answer } = reply;
    this.onAnswer({ ...answer, ...asked });
  }
}
