import { execFileSync } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { environment, leaseRow, tempDir } from "../../../test/fixtures/leasekeeper.js";
import { LedgerSource } from "./ledger.js";
import { SourceError } from "./source.js";
import { failureOfRead, readToEnd } from "./testing/read-all.js";

const API = "https://api.example.test";
const OTHER = "55555555-5555-4555-8555-555555555555";

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir("leasekeeper-ledger-read-")));
afterAll(() => cleanup());

let files = 0;
async function ledgerOf(text: string): Promise<LedgerSource> {
  const file = path.join(dir, `ledger-${++files}.json`);
  await writeFile(file, text);
  return new LedgerSource({ id: "ledger:read", path: file });
}

/** Resolves with `promise`, or fails saying what did not happen in time. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)),
  ]);
}

describe("a ledger's read hands over what load gathers", () => {
  const good = leaseRow(API, "sb-1");
  const worlds: [string, unknown][] = [
    [
      "malformed rows among good ones",
      {
        environments: [environment()],
        leases: [good, { ...leaseRow(API, "sb-2"), acquiredAt: "not a date" }, leaseRow(API, "sb-3"), 42],
      },
    ],
    [
      "a broken environment and a repeated lease id",
      {
        environments: [environment(), { ...environment(), id: "", name: "broken" }],
        leases: [good, { ...good, status: "active" }, { ...leaseRow(API, "sb-4"), acquiredAt: "soon" }],
      },
    ],
    [
      "companies, one of them malformed",
      {
        companies: [{ id: "c1", name: "Acme" }, { id: "c2" }],
        environments: [environment()],
        leases: [leaseRow(API, "sb-5")],
      },
    ],
    ["no leases at all", { environments: [environment()], leases: [] }],
  ];

  it.each(worlds)("%s", async (_, ledger) => {
    const source = await ledgerOf(JSON.stringify(ledger));
    const snapshot = await source.load();
    const { read, rows, end } = await readToEnd(await source.read());
    expect(read.scope).toBe("whole");
    expect(read.order).toBe("as-read");
    expect(read.environments).toStrictEqual(snapshot.environments);
    expect(read.companies).toStrictEqual(snapshot.companies);
    expect(rows).toStrictEqual(snapshot.leases);
    // With the digests of every lease item, for the next read of the file.
    const { ledgerItems, ...found } = end;
    expect(found).toStrictEqual({ problems: snapshot.problems, gaps: snapshot.gaps, left: [] });
    expect(ledgerItems?.count).toBe((ledger as { leases: unknown[] }).leases.length);
  });
});

describe("a ledger whose lists come in another order", () => {
  it("reads leases listed before the environments in two passes: the environments are known before any row", async () => {
    const main = environment();
    const other = environment({ id: OTHER, name: "CreateOS EU" });
    const rows = [leaseRow(API, "sb-1"), leaseRow(API, "sb-2", { environmentId: OTHER }), { id: "bad" }];
    const text = JSON.stringify({
      leases: rows,
      environments: [main, other],
      companies: [{ id: "c1", name: "A" }],
    });
    const source = await ledgerOf(text);
    const read = await source.read();
    // Known at the read's start, so each page is judged against them as it comes.
    const known = new Set(read.environments.map((env) => env.id));
    expect([...known]).toEqual([main.id, OTHER]);
    expect(read.companies).toEqual([{ id: "c1", name: "A" }]);
    const pages: (readonly LeaseRow[])[] = [];
    for await (const page of read.pages()) {
      for (const row of page) expect(known.has(row.environmentId!), row.id).toBe(true);
      pages.push(page);
    }
    expect(pages.flat().map((row) => row.id)).toEqual([rows[0]!.id, rows[1]!.id]);
    expect(read.end().problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^leases\[2\]\./),
    ]);
    expect(await source.load()).toMatchObject({ companies: [{ id: "c1", name: "A" }] });
  });

  it("takes companies listed after the leases from the read's end, in one pass", async () => {
    // Enough rows that the companies come chunks after the first row.
    const text = JSON.stringify({
      environments: [environment()],
      leases: Array.from({ length: 2_000 }, (_, at) => leaseRow(API, `sb-late-${at}`)),
      companies: [{ id: "c1", name: "Acme" }, "junk"],
    });
    expect(text.indexOf('"companies"')).toBeGreaterThan(4 * 65_536);
    const source = await ledgerOf(text);
    const { read, rows, end } = await readToEnd(await source.read());
    expect(read.companies).toEqual([]);
    expect(rows).toHaveLength(2_000);
    expect(end.companies).toEqual([{ id: "c1", name: "Acme" }]);
    expect(end.problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^companies\[1\]/),
    ]);
    const snapshot = await source.load();
    expect(snapshot.companies).toEqual([{ id: "c1", name: "Acme" }]);
    expect(snapshot.problems).toEqual(end.problems);
  });

  it("refuses environments given again after the leases: rows were judged against the first list", async () => {
    const text = JSON.stringify({ environments: [environment()], leases: [leaseRow(API, "sb-1")] }).replace(
      /\}$/,
      `, "environments": [${JSON.stringify(environment({ id: OTHER }))}]}`,
    );
    const error = await failureOfRead(async () => (await ledgerOf(text)).read());
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).code).toBe("malformed");
    expect((error as SourceError).reason).toMatch(
      /holds "environments" again after its leases; keep one list\.$/,
    );
  });
});

describe("a broken ledger fails its read as it fails load", () => {
  const valid = JSON.stringify({ environments: [environment()], leases: [leaseRow(API, "sb-1")] });
  const many = JSON.stringify({
    environments: [environment()],
    leases: Array.from({ length: 3_000 }, (_, at) => leaseRow(API, `sb-${at}`)),
  });
  const farAt = many.lastIndexOf('"id"');
  const texts: [string, string][] = [
    ["not JSON", "{ not json"],
    ["cut short", valid.slice(0, valid.length - 20)],
    ["empty", ""],
    ["the wrong shape", '{"environments": {}, "leases": []}'],
    ["no environments", '{"leases": []}'],
    ["leases given twice", valid.replace(/\}$/, ', "leases": []}')],
    ["broken far past the first page", `${many.slice(0, farAt)}@${many.slice(farAt + 1)}`],
    ["cut short past the first page", many.slice(0, many.length - 100)],
  ];

  it.each(texts)("%s", async (_, text) => {
    const source = await ledgerOf(text);
    const loaded = await source.load().then(
      () => null,
      (error: unknown) => error,
    );
    expect(loaded).toBeInstanceOf(SourceError);
    const read = await failureOfRead(() => source.read());
    expect(read).toBeInstanceOf(SourceError);
    expect((read as SourceError).message).toBe((loaded as SourceError).message);
  });

  it("hands pages over before a break far into the file, then fails them", async () => {
    const source = await ledgerOf(`${many.slice(0, farAt)}@${many.slice(farAt + 1)}`);
    const read = await source.read();
    let rows = 0;
    const error = await (async () => {
      for await (const page of read.pages()) rows += page.length;
    })().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(rows).toBeGreaterThan(0);
    expect((error as SourceError).reason).toMatch(
      new RegExp(`breaks at byte ${farAt}: it is not valid JSON\\.$`),
    );
  });
});

// A named pipe is a file whose rest does not exist until it is written: a read that needed the whole
// file before its first page would wait here for ever.
describe.skipIf(process.platform === "win32")("a ledger read through a named pipe", () => {
  const rows = Array.from({ length: 3_000 }, (_, at) => leaseRow(API, `sb-pipe-${at}`));
  const text = JSON.stringify({ environments: [environment()], leases: rows });
  // About a third of the rows, cut inside a row.
  const cut = text.indexOf(rows[1_000]!.id) + 10;

  function pipe(): { source: LedgerSource; writer: WriteStream } {
    const file = path.join(dir, `pipe-${++files}.json`);
    execFileSync("mkfifo", [file]);
    const source = new LedgerSource({ id: "ledger:pipe", path: file });
    return { source, writer: createWriteStream(file) };
  }

  it("hands the first page over before the file has been written to its end", async () => {
    const { source, writer } = pipe();
    const reading = source.read();
    // Not awaited: the pipe takes the rest of this part only as fast as the read goes on.
    writer.write(text.slice(0, cut));
    const read = await within(reading, 5_000, "the read did not begin");
    const pages = read.pages()[Symbol.asyncIterator]();
    const first = await within(pages.next(), 5_000, "no page came before the file was written to its end");
    expect(first.done).toBe(false);
    const taken = [...(first.value as readonly LeaseRow[])];
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.length).toBeLessThan(1_000);
    writer.end(text.slice(cut));
    for (let next = await pages.next(); !next.done; next = await pages.next()) taken.push(...next.value);
    expect(taken.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    expect(read.end().problems).toEqual([]);
  });

  it("closes the file when its reader stops after the first page: the writer's next write fails", async () => {
    const { source, writer } = pipe();
    const closed = new Promise<NodeJS.ErrnoException>((resolve) => writer.on("error", resolve));
    const reading = source.read();
    writer.write(text.slice(0, cut));
    const read = await within(reading, 5_000, "the read did not begin");
    for await (const _page of read.pages()) break;
    expect(() => read.end()).toThrow(/no end before its pages have ended/);
    writer.write(text.slice(cut));
    expect((await within(closed, 5_000, "the writer's write did not fail")).code).toBe("EPIPE");
  });

  it("closes the file when cancelled before its pages are taken", async () => {
    const { source, writer } = pipe();
    const closed = new Promise<NodeJS.ErrnoException>((resolve) => writer.on("error", resolve));
    const reading = source.read();
    writer.write(text.slice(0, cut));
    const read = await within(reading, 5_000, "the read did not begin");
    await read.cancel();
    expect(() => read.pages()).toThrow(/not after it was cancelled/);
    writer.write(text.slice(cut));
    expect((await within(closed, 5_000, "the writer's write did not fail")).code).toBe("EPIPE");
  });
});
