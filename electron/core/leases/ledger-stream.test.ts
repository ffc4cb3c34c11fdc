import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { generateDemoWorld } from "../../../simulator/index.js";
import { environment, leaseRow, SECRET_KEY, tempDir } from "../../../test/fixtures/leasekeeper.js";
import { LedgerSource } from "./ledger.js";
import {
  gapsOf,
  LeaseRowCollector,
  parseCompanies,
  parseEnvironments,
  parseLeaseRow,
  parseLeaseRows,
} from "./rows.js";
import { SourceError } from "./source.js";

const API = "https://api.example.test";

/**
 * The ledger read as it was before it streamed (decision 208): the whole text, JSON.parse, then the row
 * checks over each whole list. The streaming read must give exactly what this gives.
 */
function wholeTextLoad(sourceId: string, text: string) {
  const ledger = JSON.parse(text) as { environments: unknown[]; leases: unknown[]; companies?: unknown };
  const environments = parseEnvironments(ledger.environments, sourceId, "environments");
  const leases = parseLeaseRows(ledger.leases, sourceId, "leases");
  const companies = parseCompanies(
    Array.isArray(ledger.companies) ? ledger.companies : [],
    sourceId,
    "companies",
  );
  return {
    sourceId,
    environments: environments.rows,
    leases: leases.rows,
    companies: companies.rows,
    problems: [...environments.problems, ...leases.problems, ...companies.problems],
    gaps: [
      ...gapsOf(environments, ledger.environments, "environments"),
      ...gapsOf(leases, ledger.leases, "leases"),
    ],
  };
}

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir("leasekeeper-ledger-stream-")));
afterAll(() => cleanup());
afterEach(() => vi.restoreAllMocks());

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function ledgerFile(name: string, text: string): Promise<LedgerSource> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return new LedgerSource({ id: "ledger:stream", path: file });
}

/** The rejection of a call, so its class, code and message can all be checked. */
async function failureOf(call: Promise<unknown>): Promise<SourceError> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

describe("LedgerSource read as a stream", () => {
  const ROWS = 20_000;
  let bigText: string;
  let big: LedgerSource;
  let protoId: string;

  beforeAll(async () => {
    const world = generateDemoWorld({ size: ROWS, seed: "ledger-stream", environments: 20, accounts: 3 });
    const leases: unknown[] = world.ledger.leases.map((lease) => ({ ...lease }));
    expect(leases.length).toBeGreaterThanOrEqual(ROWS);
    // Every kind of row the checks refuse or change, spread over the whole file so they land in
    // different chunks: wrong types, a repeated id (also one that repeats a later good row), a secret
    // key, a __proto__ key, text that is not ASCII (some of it split between two chunks).
    for (let at = 0; at < leases.length; at += 97) {
      const row = leases[at] as Record<string, unknown>;
      switch ((at / 97) % 8) {
        case 0:
          row.acquiredAt = "not a date";
          break;
        case 1:
          leases[at] = 42;
          break;
        case 2:
          row.id = (leases[at - 1] as { id: string }).id;
          break;
        case 3:
          row.metadata = { ...(row.metadata as object), apiKey: SECRET_KEY, nested: { token: SECRET_KEY } };
          break;
        case 4:
          row.failureReason = 'ünïcødé ✓ — 😀 \u2028 "quoted" \\ end';
          // Every other such row also carries a string longer than the parser's 64 KiB string buffer,
          // its characters of two, three and four bytes landing across the buffer's edge.
          if (Math.floor(at / (97 * 8)) % 2 === 1)
            row.metadata = {
              ...(row.metadata as object),
              note: `${"x".repeat(at % 7)}${"é✓😀".repeat(9_000)}`,
            };
          break;
        case 5:
          row.lastUsedAt = { nested: true };
          break;
        case 6:
          row.metadata = null;
          break;
        default:
          row.status = "paused";
      }
    }
    // A good row whose metadata carries a __proto__ key and a secret one (written into the text below).
    const protoAt = leases.findIndex(
      (item, at) =>
        at % 97 !== 0 && parseLeaseRow(item).ok && isRecord((item as { metadata: unknown }).metadata),
    );
    const protoRow = leases[protoAt] as { id: string; metadata: Record<string, unknown> };
    protoRow.metadata = { ...protoRow.metadata, protoMarker: 1 };
    protoId = protoRow.id;
    // An unreadable row whose id a later row reads: no gap for it.
    const later = leases[leases.length - 1] as { id: string };
    leases.splice(10, 0, { id: later.id, status: 5 });
    const environments: unknown[] = [...world.ledger.environments, { id: "", name: "broken", config: {} }];
    const ledger = { companies: [...(world.ledger.companies ?? []), { id: "c-x" }], environments, leases };
    bigText = JSON.stringify(ledger, null, 1).replace(
      '"protoMarker": 1',
      '"__proto__": {"polluted": true}, "password": "x"',
    );
    big = await ledgerFile("big.json", bigText);
  }, 60_000);

  it("gives for 20,000 generated rows exactly what the whole-text read gave", async () => {
    const expected = wholeTextLoad("ledger:stream", bigText);
    // The file holds what the comparison is meant to cover.
    expect(expected.leases.length).toBeGreaterThan(ROWS * 0.9);
    expect(expected.problems.length).toBeGreaterThan(100);
    expect(expected.gaps.length).toBeGreaterThan(50);
    expect(expected.gaps.length).toBeLessThan(expected.problems.length);
    expect(bigText.length).toBeGreaterThan(20 * 65_536);
    expect(expected.leases.some((row) => Buffer.byteLength(JSON.stringify(row.metadata)) > 65_536)).toBe(
      true,
    );

    const snapshot = await big.load();
    expect(snapshot).toStrictEqual(expected);
    expect(JSON.stringify(snapshot)).not.toContain(SECRET_KEY);
    const proto = snapshot.leases.find((row) => row.id === protoId)?.metadata as Record<string, unknown>;
    expect(Object.hasOwn(proto, "__proto__")).toBe(true);
    expect(Object.hasOwn(proto, "password")).toBe(false);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("hands the rows over in pages as the file is read, reading no further while a page is held", async () => {
    const expected = await big.load();
    let parsed = 0;
    const add = LeaseRowCollector.prototype.add;
    vi.spyOn(LeaseRowCollector.prototype, "add").mockImplementation(function (
      this: LeaseRowCollector,
      ...args
    ) {
      parsed += 1;
      add.apply(this, args);
    });
    const read = await big.read();
    expect(read.environments).toStrictEqual(expected.environments);
    expect(read.companies).toStrictEqual(expected.companies);
    const pages: (readonly LeaseRow[])[] = [];
    const parsedAtPage: number[] = [];
    for await (const page of read.pages()) {
      pages.push(page);
      parsedAtPage.push(parsed);
      if (pages.length === 1) {
        // Held for a few turns of the event loop: a read that went on without the reader parses more.
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(parsed, "rows were parsed while the first page was held").toBe(parsedAtPage[0]);
      }
    }
    const total = parsed;
    expect(total).toBeGreaterThan(ROWS);
    expect(pages.length).toBeGreaterThan(20);
    // The first page came with a small part of the file parsed, the later ones as it went on.
    expect(parsedAtPage[0]).toBeLessThan(total / 20);
    expect(parsedAtPage.at(-2)).toBeLessThan(total);
    expect(pages.flat()).toStrictEqual(expected.leases);
    const { ledgerItems, ...end } = read.end();
    expect(end).toStrictEqual({ problems: expected.problems, gaps: expected.gaps, left: [] });
    expect(ledgerItems?.count).toBe((JSON.parse(bigText) as { leases: unknown[] }).leases.length);
  });

  it("re-reads a row as the whole-text read did: the first with the id, checked, or null", async () => {
    const raw = JSON.parse(bigText) as { leases: unknown[]; environments: unknown[] };
    const idAt = (at: number) => (raw.leases[at] as { id?: unknown } | null)?.id;
    // A good row near the end, and a malformed one (its id is readable, its date is not).
    const goodAt = raw.leases.length - 2;
    const badAt = raw.leases.findIndex(
      (item, at) => at > 1_000 && typeof idAt(at) === "string" && !parseLeaseRow(item).ok,
    );
    expect(parseLeaseRow(raw.leases[goodAt]).ok).toBe(true);
    expect(badAt).toBeGreaterThan(0);
    const good = parseLeaseRow(raw.leases[goodAt]);
    expect(await big.readLease(idAt(goodAt) as string)).toStrictEqual(good.ok ? good.row : null);
    const first = raw.leases.findIndex((_item, at) => at <= badAt && idAt(at) === idAt(badAt));
    await expect(big.readLease(idAt(badAt) as string)).rejects.toThrow(`leases[${first}] is malformed`);
    const environmentId = (raw.environments[3] as { id: string }).id;
    expect((await big.readEnvironment(environmentId))?.id).toBe(environmentId);
  });

  it("hands rows over chunk by chunk, giving the event loop turns in between", async () => {
    let turns = 0;
    let going = true;
    const turn = () => {
      turns += 1;
      if (going) setImmediate(turn);
    };
    setImmediate(turn);
    const turnsAtRows: number[] = [];
    const add = LeaseRowCollector.prototype.add;
    vi.spyOn(LeaseRowCollector.prototype, "add").mockImplementation(function (
      this: LeaseRowCollector,
      ...args
    ) {
      turnsAtRows.push(turns);
      add.apply(this, args);
    });
    await big.load();
    going = false;
    expect(turnsAtRows.length).toBeGreaterThan(ROWS);
    // Read whole and then checked, every row would be seen in one turn.
    expect(turnsAtRows.at(-1)! - turnsAtRows[0]!).toBeGreaterThan(10);
  });

  it("stops reading when its signal is aborted", async () => {
    const controller = new AbortController();
    const reason = new Error("scan cancelled");
    let rowsSeen = 0;
    const add = LeaseRowCollector.prototype.add;
    vi.spyOn(LeaseRowCollector.prototype, "add").mockImplementation(function (
      this: LeaseRowCollector,
      ...args
    ) {
      rowsSeen += 1;
      if (rowsSeen === 100) controller.abort(reason);
      add.apply(this, args);
    });
    await expect(big.load({ signal: controller.signal })).rejects.toBe(reason);
    // At most the rest of the chunk being parsed when the signal came.
    expect(rowsSeen).toBeGreaterThanOrEqual(100);
    expect(rowsSeen).toBeLessThan(1_000);

    rowsSeen = 0;
    const before = AbortSignal.abort(reason);
    await expect(big.load({ signal: before })).rejects.toBe(reason);
    await expect(big.readLease("any", { signal: before })).rejects.toBe(reason);
    await expect(big.readEnvironment("any", { signal: before })).rejects.toBe(reason);
    expect(rowsSeen).toBe(0);
  });
});

describe("a ledger file that is not JSON, or not a ledger", () => {
  const good = JSON.stringify({ environments: [environment()], leases: [leaseRow(API, "sb-1")] });

  it("names the byte where the JSON broke, never the text there", async () => {
    const text = '{"environments": [], "leases": [{"id": SECRET}]}';
    const error = await failureOf((await ledgerFile("broken.json", text)).load());
    expect(error.code).toBe("malformed");
    expect(error.message).toMatch(
      /^ledger:stream: ledger file .*broken\.json breaks at byte 39: it is not valid JSON\.$/,
    );
    expect(error.message).not.toContain("SECRET");
    expect(text.indexOf("SECRET")).toBe(39);
  });

  it("counts the byte from the file's start when the break is chunks away", async () => {
    const rows = Array.from({ length: 2_000 }, (_, at) => leaseRow(API, `sb-${at}`));
    const valid = JSON.stringify({ environments: [], leases: rows });
    const at = valid.lastIndexOf('"id"');
    expect(at).toBeGreaterThan(4 * 65_536);
    const text = `${valid.slice(0, at)}@${valid.slice(at + 1)}`;
    const error = await failureOf((await ledgerFile("far.json", text)).load());
    expect(error.reason).toMatch(new RegExp(`breaks at byte ${at}: it is not valid JSON\\.$`));
  });

  it("says a file cut short stops in the middle of a value", async () => {
    const cut = good.slice(0, good.length - 20);
    const error = await failureOf((await ledgerFile("cut.json", cut)).load());
    expect(error.code).toBe("malformed");
    expect(error.reason).toMatch(
      new RegExp(`cut\\.json stops at byte ${cut.length} in the middle of a value: it is not valid JSON\\.$`),
    );
    // Cut inside a token (a number) and after the root's last item.
    await expect(
      (await ledgerFile("cut2.json", '{"environments": [], "leases": [], "n": 12')).load(),
    ).rejects.toThrow(/stops at byte 42 in the middle of a value/);
  });

  it("refuses anything after the ledger but whitespace, and an empty file", async () => {
    await expect((await ledgerFile("tail.json", `${good}\n \n`)).load()).resolves.toMatchObject({
      leases: [expect.anything()],
    });
    const tail = await failureOf((await ledgerFile("tail2.json", `${good}\n{}`)).load());
    expect(tail.reason).toMatch(new RegExp(`breaks at byte ${good.length + 1}: it is not valid JSON\\.$`));
    expect((await failureOf((await ledgerFile("empty.json", "")).load())).reason).toMatch(
      /empty\.json is empty: it is not valid JSON\.$/,
    );
    expect((await failureOf((await ledgerFile("blank.json", " \n\t")).load())).reason).toMatch(
      /blank\.json holds no JSON value: it is not valid JSON\.$/,
    );
  });

  it("refuses a file of the wrong shape, as before", async () => {
    const shapes = [
      "[]",
      "42",
      "null",
      '{"leases": []}',
      '{"environments": [], "leases": {"0": {}}}',
      '{"environments": {}, "leases": []}',
      '{"environments": [], "leases": [], "leases": "gone"}',
    ];
    for (const [at, text] of shapes.entries()) {
      const error = await failureOf((await ledgerFile(`shape-${at}.json`, text)).load());
      expect(error.code).toBe("malformed");
      expect(error.reason).toMatch(/must hold \{ "environments": \[\.\.\.\], "leases": \[\.\.\.\] \}\.$/);
    }
  });

  it('refuses a repeated "leases" key, which JSON.parse let the last win: rows handed over as they are read cannot be taken back', async () => {
    const [one, two] = [leaseRow(API, "sb-1"), leaseRow(API, "sb-2")];
    const text = JSON.stringify({ environments: [], leases: [one] }).replace(
      '"leases":',
      `"leases": [${JSON.stringify(two)}, 5], "environments": [${JSON.stringify(environment())}], "leases":`,
    );
    const source = await ledgerFile("twice.json", text);
    const repeated = /^ledger file .*twice\.json holds "leases" more than once; keep one list\.$/;
    const loaded = await failureOf(source.load());
    expect(loaded.code).toBe("malformed");
    expect(loaded.reason).toMatch(repeated);
    const read = await source.read();
    const paged = await failureOf(
      (async () => {
        for await (const _page of read.pages());
      })(),
    );
    expect(paged.reason).toMatch(repeated);
    // A second list that is empty is refused all the same, once the file is read.
    const empty = await ledgerFile(
      "twice-empty.json",
      text.replace(/"leases":\[\{.*\}\]\}$/, '"leases": []}'),
    );
    expect((await failureOf(empty.load())).reason).toMatch(/holds "leases" more than once/);
  });

  it("takes the last of a repeated environments or companies key, as JSON.parse did: they are collected whole", async () => {
    const row = leaseRow(API, "sb-1");
    const text = JSON.stringify({
      companies: [{ id: "c-1", name: "Last" }],
      environments: [environment()],
      leases: [row],
    }).replace(
      '"companies":',
      '"companies": [{"id": "c-0", "name": "First"}], "environments": 7, "companies":',
    );
    const snapshot = await (await ledgerFile("twice-lists.json", text)).load();
    expect(snapshot).toStrictEqual(wholeTextLoad("ledger:stream", text));
    expect(snapshot.leases.map((lease) => lease.id)).toEqual([row.id]);
    expect(snapshot.companies).toEqual([{ id: "c-1", name: "Last" }]);
    expect(snapshot.environments.map((env) => env.id)).toEqual([environment().id]);
  });

  it("fails a re-read before an action on a file broken after the row, as a scan fails", async () => {
    const row = leaseRow(API, "sb-1");
    const text = JSON.stringify({ environments: [], leases: [row, leaseRow(API, "sb-2")] });
    const source = await ledgerFile("reread.json", text.slice(0, text.length - 30));
    expect((await readFile(source.path, "utf8")).includes(row.id)).toBe(true);
    const error = await failureOf(source.readLease(row.id));
    expect(error.reason).toMatch(/in the middle of a value: it is not valid JSON\.$/);
  });

  it("keeps the unreadable code for a file that cannot be opened", async () => {
    const error = await failureOf(new LedgerSource({ id: "l", path: dir }).load());
    expect(error.code).toBe("unreadable");
    expect(error.reason).toMatch(/^cannot read ledger file .* \(EISDIR\)\.$/);
  });
});
