import {
  buildIndexSlice,
  emptyFilterState,
  type FilterRequest,
  handleFilterRequest,
} from "./filter-protocol";

/**
 * The search worker: the search index and the filters, off the page's thread (see
 * docs/decisions/213-search-off-the-main-thread.md). Every rule lives in filter-protocol.ts and the
 * modules it calls; this file only wires them to the worker's messages.
 */
const state = emptyFilterState();
let building: ReturnType<typeof setTimeout> | undefined;

/** The search index in slices of a few ms, so a query that arrives meanwhile waits for one slice only. */
function buildLater(): void {
  clearTimeout(building);
  building = setTimeout(() => {
    if (buildIndexSlice(state, 8)) buildLater();
  }, 0);
}

self.addEventListener("message", (event: MessageEvent<FilterRequest>) => {
  const reply = handleFilterRequest(state, event.data);
  if (reply !== null) {
    self.postMessage(reply, { transfer: reply.kind === "answer" ? [reply.positions.buffer] : [] });
  }
  buildLater();
});
