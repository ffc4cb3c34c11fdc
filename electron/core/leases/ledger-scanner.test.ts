import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { generateDemoWorld } from "../../../simulator/index.js";
import { tempDir } from "../../../test/fixtures/leasekeeper.js";
import { LedgerPass } from "./ledger-pass.js";
import { LedgerScanner, MAX_GATHERED_BYTES } from "./ledger-scanner.js";
import { LedgerTokenPass } from "./ledger-token-pass.js";

// The scanner finds a ledger's values by its bytes alone; what it hands over must be exactly what
// JSON.parse of the whole file gives, however the file is cut into chunks.

/** A seeded generator, so a failing cut can be run again. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The root object rebuilt from what the scanner handed over, each list's items checked for order. */
function scanned(bytes: Buffer, chunkBytes: () => number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let list: unknown[] = [];
  const set = (key: string, value: unknown) =>
    // As JSON.parse sets it: an own data property, `__proto__` too.
    Object.defineProperty(root, key, { value, enumerable: true, writable: true, configurable: true });
  const scanner = new LedgerScanner({
    keyOpened(key, isList) {
      if (isList) {
        list = [];
        set(key, list);
      }
    },
    item(_key, item, index) {
      expect(index).toBe(list.length);
      list.push(item);
    },
    listClosed: () => undefined,
    value: set,
  });
  for (let at = 0; at < bytes.length; ) {
    const size = chunkBytes();
    scanner.write(bytes.subarray(at, at + size));
    at += size;
  }
  scanner.end();
  return root;
}

function wholeParse(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString("utf8").replace(/^\uFEFF/, ""));
}

/** Strings that look like structure, escapes and characters of two, three and four bytes. */
const TRICKY = ['a "quoted" word', "back\\slash \\", '\\"', "{ } [ ] , : }]", '"]}', "é中😀", ""];

function trickyLedger(): Record<string, unknown> {
  return {
    companies: [{ id: "c-1", name: TRICKY[0] }],
    leases: [
      { id: "l-1", metadata: { notes: TRICKY, nested: { deep: [[1, [2, { x: "]" }]], {}], empty: {} } } },
      { id: TRICKY[3], metadata: { long: `${"é".repeat(3_000)}${"😀".repeat(2_000)}` } },
      "a string item",
      12.5e-3,
      -0,
      true,
      false,
      null,
      [],
      {},
      [[]],
    ],
    extra: { anything: [TRICKY, 1, null] },
    environments: [{ id: "env-1", name: TRICKY[5] }],
  };
}

/** The same ledger written in several ways a tool might write it. */
function writings(ledger: Record<string, unknown>): [string, string][] {
  const compact = JSON.stringify(ledger);
  const pretty = JSON.stringify(ledger, null, 2);
  return [
    ["compact", compact],
    ["pretty", pretty],
    ["tabs, CRLF and a final newline", `${JSON.stringify(ledger, null, "\t").replace(/\n/g, "\r\n")}\r\n`],
    ["a BOM", `\uFEFF${pretty}`],
    ["spaces around every separator", ` \n${pretty.replace(/\n */g, "\n \t ")}\n\n `],
    ["leases first", JSON.stringify({ leases: ledger.leases, ...ledger })],
  ];
}

const RAW_ESCAPES = Buffer.from(
  '{ "environments" : [ ] ,"le\\u0061ses":[ {"a":"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/\\b\\f\\r"} ,\n' +
    ' {"__proto__": {"polluted": true}, "k\\"ey": "\\u005d\\u007d"}\t] , "__proto__" : [ 1 ] ,' +
    ' "companies":{"x":[{}]}, "n": -1.5E+3, "t": true }',
);

describe("the ledger scanner", () => {
  const cases: [string, Buffer][] = [];
  for (const [name, text] of writings(trickyLedger())) cases.push([`tricky, ${name}`, Buffer.from(text)]);
  for (const seed of [1, 2]) {
    const world = generateDemoWorld({ size: 60, seed, environments: 3, accounts: 2 });
    for (const [name, text] of writings(world.ledger as unknown as Record<string, unknown>)) {
      cases.push([`generated ${seed}, ${name}`, Buffer.from(text)]);
    }
  }
  cases.push(["unicode escapes and keys written in them", RAW_ESCAPES]);
  cases.push(["an empty leases list", Buffer.from('{"leases":[],"environments":[]}')]);

  it.each(cases)("hands over what JSON.parse gives, cut into chunks of 1–7 bytes: %s", (_, bytes) => {
    const whole = wholeParse(bytes);
    for (const seed of [11, 12, 13]) {
      const random = randomFrom(seed);
      expect(scanned(bytes, () => 1 + Math.floor(random() * 7))).toStrictEqual(whole);
    }
    expect(scanned(bytes, () => 1)).toStrictEqual(whole);
    expect(scanned(bytes, () => 64 * 1024)).toStrictEqual(whole);
  });

  it("cuts a generated ledger of 1,500 rows at random, in chunks of up to 4 KiB", () => {
    const world = generateDemoWorld({ size: 1_500, seed: 7, environments: 5, accounts: 2 });
    const bytes = Buffer.from(JSON.stringify(world.ledger, null, 2));
    const random = randomFrom(99);
    expect(scanned(bytes, () => 1 + Math.floor(random() * 4096))).toStrictEqual(wholeParse(bytes));
  });

  it("keeps a __proto__ key an own data property, as JSON.parse does", () => {
    const root = scanned(RAW_ESCAPES, () => 3) as { leases: object[] };
    const item = root.leases[1]!;
    expect(Object.hasOwn(item, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.hasOwn(root, "__proto__")).toBe(true);
  });
});

describe("a ledger pass read by its bytes", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let files = 0;
  beforeAll(async () => ({ dir, cleanup } = await tempDir("leasekeeper-ledger-scanner-")));
  afterAll(() => cleanup());
  afterEach(() => vi.restoreAllMocks());

  async function fileOf(bytes: Buffer): Promise<string> {
    const file = path.join(dir, `ledger-${++files}.json`);
    await writeFile(file, bytes);
    return file;
  }

  async function passOver(file: string, chunkBytes?: number) {
    const items: [number, unknown][] = [];
    const pass = new LedgerPass({
      sourceId: "ledger",
      path: file,
      sink: { add: (item, index) => items.push([index, item]) },
      chunkBytes,
    });
    await pass.finish();
    return { items, environments: pass.environments, companies: pass.companies, pass };
  }

  it.each([1, 3, 7, 64 * 1024])(
    "gives every lease item, the environments and the companies as JSON.parse does, without the token pass (chunks of %i bytes)",
    async (chunkBytes) => {
      const byTokens = vi.spyOn(LedgerTokenPass.prototype, "next");
      for (const [, text] of writings(trickyLedger())) {
        const bytes = Buffer.from(text);
        const whole = wholeParse(bytes) as { leases: unknown[]; environments: unknown; companies: unknown };
        const read = await passOver(await fileOf(bytes), chunkBytes);
        expect(read.items).toStrictEqual(whole.leases.map((item, index) => [index, item]));
        expect(read.environments).toStrictEqual(whole.environments);
        expect(read.companies).toStrictEqual(whole.companies);
        expect(read.pass.bytes).toBe(bytes.length);
      }
      expect(byTokens).not.toHaveBeenCalled();
    },
  );

  it("hands each item over once when it falls back midway: the token pass drops those already handed", async () => {
    const world = generateDemoWorld({ size: 300, seed: 3, environments: 3, accounts: 2 });
    const ledger = { ...world.ledger, companies: [{ id: "c-1", name: "One" }] };
    const bytes = Buffer.from(JSON.stringify(ledger, null, 2));
    const file = await fileOf(bytes);
    const whole = wholeParse(bytes) as { leases: unknown[] };
    // The scanner's 101st parse fails as though the bytes were not JSON; the token pass reads them.
    const parse = JSON.parse;
    let parses = 0;
    vi.spyOn(JSON, "parse").mockImplementation((text: string) => {
      parses += 1;
      if (parses === 101) throw new SyntaxError("not vouched for");
      return parse(text);
    });
    const byTokens = vi.spyOn(LedgerTokenPass.prototype, "next");
    const read = await passOver(file, 4096);
    expect(byTokens).toHaveBeenCalled();
    expect(read.items).toHaveLength(whole.leases.length);
    expect(read.items).toStrictEqual(whole.leases.map((item, index) => [index, item]));
    expect(read.environments).toStrictEqual(ledger.environments);
    expect(read.companies).toStrictEqual(ledger.companies);
  });

  it("leaves a value larger than it gathers to the token pass, which builds it piece by piece", async () => {
    // Parsed in one allocation, a row larger than a thread's heap budget would end the whole process.
    const large = { id: "large", note: "x".repeat(MAX_GATHERED_BYTES + 1) };
    const ledger = { environments: [], leases: [{ id: "first" }, large, { id: "last" }] };
    const bytes = Buffer.from(JSON.stringify(ledger));
    const byTokens = vi.spyOn(LedgerTokenPass.prototype, "next");
    const read = await passOver(await fileOf(bytes));
    expect(byTokens).toHaveBeenCalled();
    expect(read.items).toStrictEqual(ledger.leases.map((item, index) => [index, item]));
  });
});
