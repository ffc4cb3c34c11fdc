import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environment, leaseRow, tempDir } from "../../../test/fixtures/leasekeeper.js";
import { LedgerPass } from "./ledger-pass.js";
import { LedgerTokenPass } from "./ledger-token-pass.js";
import { SourceError } from "./source.js";

// A file the scanner cannot vouch for is read token by token, as every file was before: the items it
// hands over and the error it ends with must be exactly the token pass's, byte position and all.

const API = "https://api.example.test";

const valid = JSON.stringify({ environments: [environment()], leases: [leaseRow(API, "sb-1")] });
const twoRows = JSON.stringify({ environments: [], leases: [leaseRow(API, "sb-1"), leaseRow(API, "sb-2")] });
const many = JSON.stringify({
  environments: [environment()],
  leases: Array.from({ length: 3_000 }, (_, at) => leaseRow(API, `sb-${at}`)),
});
const farAt = many.lastIndexOf('"id"');
const twice = JSON.stringify({ environments: [], leases: [leaseRow(API, "sb-1")] }).replace(
  '"leases":',
  `"leases": [${JSON.stringify(leaseRow(API, "sb-2"))}, 5], "environments": [${JSON.stringify(environment())}], "leases":`,
);

/** Every broken or misshapen file the ledger tests read, and a few more the scanner must not take. */
const BROKEN: [string, string | Buffer][] = [
  ["not JSON", "{ not json"],
  ["a bare word where a value goes", '{"environments": [], "leases": [{"id": SECRET}]}'],
  ["cut short", valid.slice(0, valid.length - 20)],
  ["cut short after a row", twoRows.slice(0, twoRows.length - 30)],
  ["cut inside a number", '{"environments": [], "leases": [], "n": 12'],
  ["empty", ""],
  ["whitespace only", " \n\t"],
  ["anything but whitespace after the root", `${valid}\n{}`],
  ["broken far past the first chunks", `${many.slice(0, farAt)}@${many.slice(farAt + 1)}`],
  ["cut short far past the first chunks", many.slice(0, many.length - 100)],
  ["a list for a root", "[]"],
  ["a number for a root", "42"],
  ["null for a root", "null"],
  ["no environments", '{"leases": []}'],
  ["leases an object", '{"environments": [], "leases": {"0": {}}}'],
  ["environments an object", '{"environments": {}, "leases": []}'],
  ["leases given again as no list", '{"environments": [], "leases": [], "leases": "gone"}'],
  ["leases given twice", valid.replace(/\}$/, ', "leases": []}')],
  ["leases given twice, with rows", twice],
  ["leases given twice, the second empty", twice.replace(/"leases":\[\{.*\}\]\}$/, '"leases": []}')],
  ["a comma before a list's end", '{"environments": [], "leases": [1, 2,]}'],
  ["a comma before the root's end", '{"environments": [], "leases": [1],}'],
  ["two items without a comma", '{"environments": [], "leases": [1 2]}'],
  ["a number with a leading zero", '{"environments": [], "leases": [01]}'],
  ["a tab inside a string", '{"environments": [], "leases": ["a\tb"]}'],
  ["a bad escape", '{"environments": [], "leases": ["\\x"]}'],
  ["half a BOM", Buffer.from([0xef, 0xbb, 0x7b, 0x7d])],
  [
    "bytes that are not UTF-8",
    Buffer.concat([
      Buffer.from('{"environments":[],"leases":["'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from('"]}'),
    ]),
  ],
];

let dir: string;
let cleanup: () => Promise<void>;
let files = 0;
beforeAll(async () => ({ dir, cleanup } = await tempDir("leasekeeper-ledger-fallback-")));
afterAll(() => cleanup());

async function fileOf(content: string | Buffer): Promise<string> {
  const file = path.join(dir, `ledger-${++files}.json`);
  await writeFile(file, content);
  return file;
}

/** The items a pass hands over and how it ends. */
async function outcome(Pass: typeof LedgerPass | typeof LedgerTokenPass, file: string, chunkBytes?: number) {
  const items: [number, unknown][] = [];
  const pass = new Pass({
    sourceId: "ledger:fallback",
    path: file,
    sink: { add: (item, index) => items.push([index, item]) },
    chunkBytes,
  });
  const error = await pass.finish().then(
    () => null,
    (caught: unknown) => caught,
  );
  return { items, error, environments: pass.environments, companies: pass.companies };
}

describe("a ledger the scanner cannot vouch for", () => {
  it.each(BROKEN)("fails as the token pass fails, after the same items: %s", async (_, content) => {
    const file = await fileOf(content);
    // Small chunks cut every token somewhere; a large file in them would take minutes.
    for (const chunkBytes of [undefined, content.length > 10_000 ? 4_099 : 7]) {
      const before = await outcome(LedgerTokenPass, file, chunkBytes);
      const now = await outcome(LedgerPass, file, chunkBytes);
      expect(before.error).toBeInstanceOf(SourceError);
      expect(now.error).toBeInstanceOf(SourceError);
      expect((now.error as SourceError).code).toBe((before.error as SourceError).code);
      expect((now.error as SourceError).message).toBe((before.error as SourceError).message);
      expect(now.items).toStrictEqual(before.items);
    }
  });

  it("hands over the rows before a break far into the file once each, as the token pass did", async () => {
    const file = await fileOf(`${many.slice(0, farAt)}@${many.slice(farAt + 1)}`);
    const now = await outcome(LedgerPass, file);
    expect(now.items.length).toBe(2_999);
    expect(new Set(now.items.map(([index]) => index)).size).toBe(2_999);
    expect((now.error as SourceError).reason).toMatch(
      new RegExp(`breaks at byte ${farAt}: it is not valid JSON\\.$`),
    );
  });

  it("says why a file cannot be opened, as before", async () => {
    for (const file of [dir, path.join(dir, "missing.json")]) {
      const before = await outcome(LedgerTokenPass, file);
      const now = await outcome(LedgerPass, file);
      expect((now.error as SourceError).message).toBe((before.error as SourceError).message);
      expect((now.error as SourceError).code).toBe("unreadable");
    }
  });

  it("reads a good ledger as the token pass reads it", async () => {
    const file = await fileOf(
      JSON.stringify({ companies: [{ id: "c-1", name: "A" }], ...JSON.parse(many), other: [[1], { a: 2 }] }),
    );
    const before = await outcome(LedgerTokenPass, file);
    const now = await outcome(LedgerPass, file);
    expect(now.error).toBeNull();
    expect(now).toStrictEqual(before);
  });
});
