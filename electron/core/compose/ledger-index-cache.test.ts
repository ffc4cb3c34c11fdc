import { readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { environment, leaseRow, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import { leaseKey } from "../actions/ports.js";
import { LedgerSource } from "../leases/ledger.js";
import { LedgerIndexCache } from "./ledger-index-cache.js";
import { sourceRereader } from "./source-rereader.js";

const API = "https://api.example.test";

describe("a job's re-reads of a ledger file", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const first = leaseRow(API, "sb-aaaa");
  const second = leaseRow(API, "sb-bbbb");
  const ledger = async () => {
    const file = await writeJson(path.join(dir, "ledger.json"), {
      environments: [environment()],
      leases: [first, second],
    });
    const source = new LedgerSource({ id: "ledger:test", path: file });
    return { file, source, loads: vi.spyOn(source, "load") };
  };
  const refs = [{ sourceId: "ledger:test", leaseId: first.id, sharedWith: [] }];
  const sandboxOf = (reads: Map<string, { lease: { providerLeaseId: string | null } } | null>) =>
    reads.get(leaseKey("ledger:test", first.id))?.lease.providerLeaseId;

  it("parse the file once while its bytes stay the same, for rows and for the sandboxes they name", async () => {
    const { source, loads } = await ledger();
    const rereader = sourceRereader([source]);
    expect(sandboxOf(await rereader.reread(refs))).toBe("sb-aaaa");
    expect(sandboxOf(await rereader.reread(refs))).toBe("sb-aaaa");
    expect(await rereader.namedSandboxes(["sb-bbbb", "sb-cccc"])).toEqual(new Set(["sb-bbbb"]));
    expect(loads).toHaveBeenCalledTimes(1);
  });

  it("see a file rewritten to the same size and modification time", async () => {
    const { file, source, loads } = await ledger();
    const rereader = sourceRereader([source]);
    expect(sandboxOf(await rereader.reread(refs))).toBe("sb-aaaa");
    const before = await stat(file);
    await writeFile(file, (await readFile(file, "utf8")).replace('"sb-aaaa"', '"sb-cccc"'));
    await utimes(file, before.atime, before.mtime);
    expect((await stat(file)).size).toBe(before.size);

    expect(sandboxOf(await rereader.reread(refs))).toBe("sb-cccc");
    expect(await rereader.namedSandboxes(["sb-aaaa", "sb-cccc"])).toEqual(new Set(["sb-cccc"]));
    expect(loads).toHaveBeenCalledTimes(2);
  });

  it("fail as the file fails once it is gone, rather than answer from the last read", async () => {
    const { file, source } = await ledger();
    const rereader = sourceRereader([source]);
    expect(sandboxOf(await rereader.reread(refs))).toBe("sb-aaaa");
    await rm(file);
    await expect(rereader.reread(refs)).rejects.toMatchObject({ code: "unreadable" });
  });

  it("let the index go once it is unused for its keeping time", async () => {
    const { source, loads } = await ledger();
    const rereader = sourceRereader([source], new LedgerIndexCache({ keepMs: 20 }));
    await rereader.reread(refs);
    await sleep(150);
    await rereader.reread(refs);
    expect(loads).toHaveBeenCalledTimes(2);
  });
});
