import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AddressHistory, AddressWriter, SEARCH_SETTLE_MS } from "./address-writer";

/** A history that records its calls, in order. */
function recordingHistory(): AddressHistory & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    pushState: (_data, _unused, url) => calls.push(`push ${url}`),
    replaceState: (_data, _unused, url) => calls.push(`replace ${url}`),
  };
}

describe("the address writer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("writes a search typed a key at a time once, when typing pauses", () => {
    const history = recordingHistory();
    const writer = new AddressWriter(history);
    for (const typed of ["a", "ac", "acm", "acme"]) {
      writer.follow(`/#q=${typed}`, "search");
      vi.advanceTimersByTime(SEARCH_SETTLE_MS - 1);
    }
    expect(history.calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(history.calls).toEqual(["replace /#q=acme"]);
    vi.advanceTimersByTime(10 * SEARCH_SETTLE_MS);
    expect(history.calls).toHaveLength(1);
  });

  it("writes filters and the open lease at once, in place of a search still waiting", () => {
    const history = recordingHistory();
    const writer = new AddressWriter(history);
    writer.follow("/#q=acme", "search");
    writer.follow("/#headline=stale&q=acme", "replace");
    vi.advanceTimersByTime(10 * SEARCH_SETTLE_MS);
    expect(history.calls).toEqual(["replace /#headline=stale&q=acme"]);
  });

  it("leaves the search typed on the entry being left before it opens a new one", () => {
    const history = recordingHistory();
    const writer = new AddressWriter(history);
    writer.follow("/#q=acme", "search");
    writer.follow("/#view=audit&q=acme", "entry");
    vi.advanceTimersByTime(10 * SEARCH_SETTLE_MS);
    expect(history.calls).toEqual(["replace /#q=acme", "push /#view=audit&q=acme"]);
  });

  it("drops a waiting search when the operator navigates, and writes one still waiting when told to", () => {
    const history = recordingHistory();
    const writer = new AddressWriter(history);
    writer.follow("/#q=acme", "search");
    writer.drop();
    vi.advanceTimersByTime(10 * SEARCH_SETTLE_MS);
    expect(history.calls).toEqual([]);

    writer.follow("/#q=globex", "search");
    writer.flush();
    writer.flush();
    vi.advanceTimersByTime(10 * SEARCH_SETTLE_MS);
    expect(history.calls).toEqual(["replace /#q=globex"]);
  });
});
