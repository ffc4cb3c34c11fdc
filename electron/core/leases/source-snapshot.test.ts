import { describe, expect, it } from "vitest";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { environment, row } from "../../../shared/domain/test-fixtures.js";
import { type PagesOfRead, pagedRead, type ReadHead } from "./paged-read.js";
import type { SourceReadEnd } from "./source-read.js";
import { snapshotOf } from "./source-snapshot.js";

const lease = (id: string): LeaseRow => row({ id, providerLeaseId: `sbx_${id}` });

function head(overrides: Partial<ReadHead> = {}): ReadHead {
  return {
    sourceId: "test",
    environments: [environment()],
    companies: [{ id: "c1", name: "Acme" }],
    scope: "whole",
    order: "as-read",
    ...overrides,
  };
}

/** A read of `pages`, recording what it let go of and when. */
function readOf(
  pages: LeaseRow[][],
  end: Partial<SourceReadEnd> = {},
  headOverrides: Partial<ReadHead> = {},
) {
  const events: string[] = [];
  const reading: PagesOfRead = {
    async *pages() {
      try {
        for (const [at, page] of pages.entries()) {
          events.push(`page ${at}`);
          yield page;
        }
        return { problems: [], gaps: [], left: [], ...end };
      } finally {
        events.push("finally");
      }
    },
    async letGo() {
      events.push("let go");
    },
  };
  return { read: pagedRead(head(headOverrides), reading), events };
}

describe("a source's read, taken page by page", () => {
  it("hands its pages once, and answers end() only once they have ended", async () => {
    const { read } = readOf([[lease("a")], [lease("b")]]);
    expect(() => read.end()).toThrow(/no end before its pages have ended/);
    const taken: string[] = [];
    for await (const page of read.pages()) taken.push(...page.map((one) => one.id));
    expect(taken).toEqual(["a", "b"]);
    expect(read.end()).toEqual({ problems: [], gaps: [], left: [] });
    expect(() => read.pages()).toThrow(/taken once/);
  });

  it("lets go of what it holds when the reader breaks off, throws in its loop, or cancels", async () => {
    const broken = readOf([[lease("a")], [lease("b")]]);
    for await (const _page of broken.read.pages()) break;
    expect(broken.events).toEqual(["page 0", "finally"]);

    const thrown = readOf([[lease("a")], [lease("b")]]);
    await expect(
      (async () => {
        for await (const _page of thrown.read.pages()) throw new Error("the store refused the page");
      })(),
    ).rejects.toThrow("the store refused the page");
    expect(thrown.events).toEqual(["page 0", "finally"]);

    const cancelled = readOf([[lease("a")], [lease("b")]]);
    const pages = cancelled.read.pages()[Symbol.asyncIterator]();
    await pages.next();
    await cancelled.read.cancel();
    expect(cancelled.events).toEqual(["page 0", "finally"]);
    expect(await pages.next()).toEqual({ done: true, value: undefined });
  });

  it("lets go of what the head left open when cancelled before its pages were begun", async () => {
    const never = readOf([[lease("a")]]);
    await never.read.cancel();
    await never.read.cancel();
    expect(never.events).toEqual(["let go"]);
    expect(() => never.read.pages()).toThrow(/not after it was cancelled/);

    // Asked for, but never iterated: the pages' own `finally` never runs, so the head is let go of.
    const asked = readOf([[lease("a")]]);
    asked.read.pages();
    await asked.read.cancel();
    expect(asked.events).toEqual(["let go"]);
  });
});

describe("snapshotOf", () => {
  it("gathers the pages in the order read, with what the head and the end found", async () => {
    const problems = [{ source: "test", index: 1, message: "leases[1] is malformed" }];
    const gaps = [{ source: "test", origin: null, message: "leases[1] could not be read" }];
    const { read } = readOf([[lease("b"), lease("a")], [lease("c")]], { problems, gaps }, { note: "a note" });
    const snapshot = await snapshotOf(read);
    expect(snapshot).toStrictEqual({
      sourceId: "test",
      environments: [environment()],
      leases: [lease("b"), lease("a"), lease("c")],
      companies: [{ id: "c1", name: "Acme" }],
      problems,
      gaps,
      note: "a note",
    });
  });

  it("sorts a by-id read by id, and takes the companies a source named after its rows", async () => {
    const readUpTo = { watermark: "2026-12-01T10:00:00+00:00", changedRows: 3, fullPass: true };
    const { read } = readOf(
      [[lease("c"), lease("a")], [lease("b")]],
      { readUpTo, companies: [{ id: "c2", name: "Globex" }] },
      { order: "by-id" },
    );
    const snapshot = await snapshotOf(read);
    expect(snapshot.leases.map((one) => one.id)).toEqual(["a", "b", "c"]);
    expect(snapshot.companies).toEqual([{ id: "c2", name: "Globex" }]);
    expect(snapshot.readUpTo).toEqual(readUpTo);
  });

  it("lays a read of changed rows over the rows it read from: the rest are the very objects given", async () => {
    const previous = new Map(["a", "b", "c", "d"].map((id) => [id, lease(id)]));
    const changedB = { ...lease("b"), status: "expired" };
    const { read } = readOf(
      [[lease("e"), changedB]],
      { left: ["c", "x"] },
      { scope: "changed", order: "by-id" },
    );
    const snapshot = await snapshotOf(read, previous);
    expect(snapshot.leases.map((one) => one.id)).toEqual(["a", "b", "d", "e"]);
    expect(snapshot.leases[0]).toBe(previous.get("a"));
    expect(snapshot.leases[1]).toBe(changedB);
    expect(snapshot.leases[2]).toBe(previous.get("d"));

    const orphaned = readOf([[lease("e")]], {}, { scope: "changed", order: "by-id" });
    await expect(snapshotOf(orphaned.read)).rejects.toThrow(/needs the rows it read from/);
    expect(orphaned.events).toEqual(["let go"]);
  });
});
