import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { environment, leaseRow, SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import { LedgerSource } from "./ledger.js";
import { SourceError } from "./source.js";

const API = "https://api.example.test";

describe("LedgerSource", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const ledgerAt = async (value: unknown) =>
    new LedgerSource({ id: "ledger:test", path: await writeJson(path.join(dir, "ledger.json"), value) });

  it("loads every well-formed row and reports a malformed one by index and field, without its content", async () => {
    const good = leaseRow(API, "sb-1");
    const alsoGood = leaseRow(API, "sb-3", { status: "paused" });
    const noDate = { ...leaseRow(API, "sb-2"), acquiredAt: "not a date, and lk_test_LEAK" };
    const source = await ledgerAt({ environments: [environment()], leases: [good, noDate, alsoGood, 42] });

    const snapshot = await source.load();
    expect(snapshot.sourceId).toBe("ledger:test");
    expect(snapshot.environments.map((env) => env.id)).toEqual([environment().id]);
    expect(snapshot.leases.map((row) => row.id)).toEqual([good.id, alsoGood.id]);
    // An unknown status is kept as the string it is.
    expect(snapshot.leases[1]?.status).toBe("paused");
    expect(snapshot.problems).toEqual([
      { source: "ledger:test", index: 1, message: "leases[1].acquiredAt: must be an ISO date." },
      { source: "ledger:test", index: 3, message: expect.stringMatching(/^leases\[3\]: /) },
    ]);
    expect(JSON.stringify(snapshot.problems)).not.toContain("lk_test_LEAK");
  });

  it("reports a malformed environment and a repeated lease id, and keeps the rest", async () => {
    const row = leaseRow(API, "sb-1");
    const source = await ledgerAt({
      environments: [environment(), { ...environment(), id: "", name: "broken" }],
      leases: [row, { ...row, status: "active" }],
    });
    const snapshot = await source.load();
    expect(snapshot.leases).toHaveLength(1);
    expect(snapshot.problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^environments\[1\]\.id: /),
      "leases[1].id: repeats leases[0].",
    ]);
  });

  it("reads the optional companies list, reporting a malformed entry by index, never fatal", async () => {
    const source = await ledgerAt({
      companies: [{ id: "c1", name: "Acme", extra: true }, { id: "c2" }, "junk"],
      environments: [environment()],
      leases: [leaseRow(API, "sb-1")],
    });
    const snapshot = await source.load();
    expect(snapshot.companies).toEqual([{ id: "c1", name: "Acme" }]);
    expect(snapshot.problems.map((problem) => [problem.index, problem.message])).toEqual([
      [1, expect.stringMatching(/^companies\[1\]\.name: /)],
      [2, expect.stringMatching(/^companies\[2\]: /)],
    ]);
    expect(snapshot.leases).toHaveLength(1);
    const without = await (await ledgerAt({ environments: [], leases: [], companies: "nope" })).load();
    expect(without.companies).toEqual([]);
  });

  it("reports an entry it could not read as a gap at the origin the entry names, or anywhere", async () => {
    const row = leaseRow(API, "sb-1");
    const source = await ledgerAt({
      environments: [environment(), { ...environment(), id: "", name: "broken" }],
      leases: [row, { ...row, status: "active" }, { ...leaseRow(API, "sb-2"), acquiredAt: "soon" }, 42],
    });
    const snapshot = await source.load();
    expect(snapshot.gaps).toEqual([
      // An environment whose id cannot be read is one the file does not list: the listed ones were read.
      {
        source: "ledger:test",
        origin: API,
        message: "environments[1] could not be read",
        unlistedOnly: true,
      },
      // leases[1] only repeats leases[0]'s id: it hides no row.
      {
        source: "ledger:test",
        origin: API,
        message: "leases[2] could not be read",
        environmentId: environment().id,
      },
      { source: "ledger:test", origin: null, message: "leases[3] could not be read" },
    ]);
  });

  it("names the environment of an entry it could not read, when the entry's environment can be read", async () => {
    const other = "55555555-5555-4555-8555-555555555555";
    const source = await ledgerAt({
      environments: [
        environment(),
        environment({ id: other, name: "CreateOS second" }),
        // Its name cannot be read, its id can.
        { ...environment(), id: "66666666-6666-4666-8666-666666666666", name: 42 },
      ],
      leases: [
        leaseRow(API, "sb-1", { environmentId: other }),
        // No company: the row cannot be read, but the environment it names can.
        { ...leaseRow(API, "sb-2", { environmentId: other }), companyId: undefined },
        { ...leaseRow(API, "sb-3"), environmentId: 7, acquiredAt: "soon" },
        { ...leaseRow(API, "sb-4"), environmentId: null, acquiredAt: "soon" },
      ],
    });
    const snapshot = await source.load();
    expect(snapshot.gaps.map(({ message, environmentId }) => [message, environmentId])).toEqual([
      ["environments[2] could not be read", "66666666-6666-4666-8666-666666666666"],
      ["leases[1] could not be read", other],
      // An environment id that is no id, or none at all: the row could be any environment's.
      ["leases[2] could not be read", undefined],
      ["leases[3] could not be read", undefined],
    ]);
    expect(snapshot.gaps.filter((gap) => "environmentId" in gap)).toHaveLength(2);
  });

  it("marks a row listed under an environment entry it could not read, and only such a row", async () => {
    const unread = "66666666-6666-4666-8666-666666666666";
    const underUnread = leaseRow(API, "sb-1", { environmentId: unread });
    // A row cannot say it of itself: its environment was read.
    const claiming = { ...leaseRow(API, "sb-2"), environmentUnread: true };
    const orphan = leaseRow(API, "sb-3", { environmentId: "77777777-7777-4777-8777-777777777777" });
    const ledger = {
      environments: [environment(), { ...environment(), id: unread, name: 42 }],
      leases: [underUnread, claiming, orphan],
    };
    // Environments first (read in one pass), and after the leases (read twice): the same marks.
    for (const value of [ledger, { leases: ledger.leases, environments: ledger.environments }]) {
      const source = await ledgerAt(value);
      const snapshot = await source.load();
      expect(snapshot.leases.map((row) => [row.id, row.environmentUnread])).toEqual([
        [underUnread.id, true],
        [claiming.id, undefined],
        [orphan.id, undefined],
      ]);
      expect((await source.readLease(underUnread.id))?.environmentUnread).toBe(true);
      expect(await source.readLease(claiming.id)).not.toHaveProperty("environmentUnread");
      // Asked for by itself, the entry is not said to be gone: its read fails, saying it could not be read.
      await expect(source.readEnvironment(unread)).rejects.toThrow(
        "environments[1] could not be read (name:",
      );
    }
  });

  it("never keeps a credential a row or a config carries", async () => {
    const row = leaseRow(API, "sb-1");
    (row.metadata as Record<string, unknown>).apiKey = SECRET_KEY;
    const env = environment({
      config: { provider: "createos", apiUrl: API, apiKey: SECRET_KEY, nested: { token: SECRET_KEY } },
    });
    const snapshot = await (await ledgerAt({ environments: [env], leases: [row] })).load();
    expect(JSON.stringify(snapshot)).not.toContain(SECRET_KEY);
    expect(snapshot.leases[0]?.metadata).toMatchObject({
      provider: "createos",
      apiUrl: API,
      marker: expect.any(String),
    });
    expect(snapshot.environments[0]?.config).toMatchObject({ provider: "createos", apiUrl: API, nested: {} });
  });

  it("keeps a __proto__ key in metadata a plain data property", async () => {
    const row = leaseRow(API, "sb-1");
    const text = JSON.stringify({ environments: [], leases: [row] }).replace(
      '"metadata":{',
      '"metadata":{"__proto__":{"polluted":true},"apiKey":"x",',
    );
    await writeFile(path.join(dir, "ledger.json"), text);
    const snapshot = await new LedgerSource({ id: "l", path: path.join(dir, "ledger.json") }).load();
    const metadata = snapshot.leases[0]?.metadata as Record<string, unknown>;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.hasOwn(metadata, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("re-reads one row, or null when it is gone, and refuses a malformed one", async () => {
    const row = leaseRow(API, "sb-1");
    const broken = { ...leaseRow(API, "sb-2"), lastUsedAt: 5 };
    const source = await ledgerAt({ environments: [environment()], leases: [row, broken] });
    expect((await source.readLease(row.id))?.providerLeaseId).toBe("sb-1");
    expect(await source.readLease("no-such-lease")).toBeNull();
    await expect(source.readLease(broken.id)).rejects.toThrow(/leases\[1\] is malformed \(lastUsedAt: /);
    expect((await source.readEnvironment(environment().id))?.config.reuseLease).toBe(true);
    expect(await source.readEnvironment("nope")).toBeNull();
  });

  it("fails clearly on a missing, non-JSON or wrongly shaped file", async () => {
    const missing = new LedgerSource({ id: "ledger:x", path: path.join(dir, "missing.json") });
    await expect(missing.load()).rejects.toThrow(SourceError);
    await expect(missing.load()).rejects.toThrow(
      /^ledger:x: cannot read ledger file .*missing\.json \(ENOENT\)\.$/,
    );

    await writeFile(path.join(dir, "bad.json"), "{ not json");
    await expect(new LedgerSource({ id: "l", path: path.join(dir, "bad.json") }).load()).rejects.toThrow(
      /is not valid JSON\.$/,
    );
    await expect((await ledgerAt({ leases: [] })).load()).rejects.toThrow(/must hold \{ "environments"/);
    await expect((await ledgerAt([])).load()).rejects.toThrow(/must hold/);
  });
});
