import { execFileSync } from "node:child_process";
import { createWriteStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/fixtures/leasekeeper.js";
import { LedgerChunks } from "./ledger-chunks.js";
import { SourceError } from "./source.js";

const KIB = 1024;

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await tempDir("leasekeeper-ledger-chunks-")));
afterAll(() => cleanup());

let files = 0;
async function fileOf(bytes: Buffer): Promise<string> {
  const file = path.join(dir, `ledger-${++files}.json`);
  await writeFile(file, bytes);
  return file;
}

/** Bytes that differ from chunk to chunk, so a chunk read over another one shows. */
function bytesOf(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let at = 0; at < size; at++) bytes[at] = (at * 7 + Math.floor(at / 4099)) & 0xff;
  return bytes;
}

describe("a ledger file's chunks", () => {
  it("are read into two buffers of 64 KiB in turn, so a read of 2 MB holds two chunks' bytes, not 32", async () => {
    // A buffer for each chunk lives outside the thread's heap until a collection finds it dead: a rescan,
    // which parses almost nothing, left 22–27 MB of them for a full collection at 20,000 leases.
    const bytes = bytesOf(2 * KIB * KIB);
    const chunks = new LedgerChunks({ sourceId: "ledger", path: await fileOf(bytes) });
    const buffers = new Set<ArrayBuffer>();
    const copies: Buffer[] = [];
    for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) {
      buffers.add(chunk.buffer as ArrayBuffer);
      copies.push(Buffer.from(chunk));
    }
    expect(copies).toHaveLength(32);
    expect(buffers.size, `the read allocated ${buffers.size} buffers for ${copies.length} chunks`).toBe(2);
    expect([...buffers].map((buffer) => buffer.byteLength)).toEqual([64 * KIB, 64 * KIB]);
    expect(Buffer.concat(copies).equals(bytes)).toBe(true);
  });

  it("ends a file whose size is a whole number of chunks, and one of no bytes", async () => {
    for (const size of [3 * 4096, 0]) {
      const bytes = bytesOf(size);
      const chunks = new LedgerChunks({ sourceId: "ledger", path: await fileOf(bytes), chunkBytes: 4096 });
      const copies: Buffer[] = [];
      for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) {
        copies.push(Buffer.from(chunk));
      }
      expect(copies.map((copy) => copy.length)).toEqual(size === 0 ? [] : [4096, 4096, 4096]);
      expect(await chunks.next()).toBeNull();
    }
  });

  it("says a file that cannot be read is unreadable, by the system's code", async () => {
    const chunks = new LedgerChunks({ sourceId: "ledger", path: path.join(dir, "missing.json") });
    const failure = await chunks.next().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect((failure as SourceError).message).toMatch(/cannot read ledger file .*missing\.json \(ENOENT\)/);
  });

  it("gives the signal's reason at once when aborted while a pipe's writer has nothing more to give", async () => {
    const file = path.join(dir, `pipe-${++files}.json`);
    execFileSync("mkfifo", [file]);
    const writer = createWriteStream(file);
    writer.on("error", () => undefined);
    const controller = new AbortController();
    const chunks = new LedgerChunks({ sourceId: "ledger", path: file, signal: controller.signal });
    writer.write("{");
    expect((await chunks.next())?.toString()).toBe("{");
    const waiting = chunks.next();
    const reason = new Error("scan cancelled");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    writer.end("}");
  });
});
