import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type PostgresServer, startPostgres } from "../../../../test/support/postgres.js";
import { openDatabase } from "../../store/database.js";
import { openPostgresStore, type PostgresStore } from "../../store/postgres/store.js";
import { claimKey, type SandboxClaims } from "./claims.js";
import { SqliteClaims } from "./sqlite-claims.js";

// The claims contract on both stores, each through two connections as two processes hold them: one
// holder per sandbox, an expiry that lets a dead holder's claims lapse, renewal while held, release by
// the holder only, and a resume taking over what the job it continues held. SQLite on a real file,
// PostgreSQL on a real embedded server.

const SANDBOX = { origin: "http://127.0.0.1:9", sandboxId: "sb-1" };
const T0 = new Date("2026-12-01T10:00:00.000Z");
const TTL = 30_000;
const later = (ms: number) => new Date(T0.getTime() + ms);

interface ClaimStore {
  /** A new, empty store; `connection()` opens another connection to it, as another process would. */
  fresh(): Promise<void>;
  connection(): Promise<SandboxClaims>;
  cleanUp(): Promise<void>;
}

function sqliteStore(): ClaimStore {
  let dir = "";
  const opened: { close(): void }[] = [];
  return {
    async fresh() {
      dir = mkdtempSync(path.join(tmpdir(), "lk-claims-"));
    },
    async connection() {
      const db = openDatabase(dir);
      opened.push(db);
      return new SqliteClaims(db);
    },
    async cleanUp() {
      for (const db of opened.splice(0)) db.close();
      if (dir !== "") rmSync(dir, { recursive: true, force: true });
    },
  };
}

let server: PostgresServer | undefined;
function postgresStore(): ClaimStore {
  let url = "";
  const opened: PostgresStore[] = [];
  return {
    async fresh() {
      server ??= await startPostgres();
      url = (await server.createDatabase("claims")).url;
    },
    async connection() {
      const store = await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL" });
      opened.push(store);
      return store.claims;
    },
    async cleanUp() {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    },
  };
}

afterAll(async () => {
  await server?.stop();
}, 60_000);

describe.each([
  ["SQLite", sqliteStore()],
  ["PostgreSQL", postgresStore()],
])("sandbox claims in the %s store", (_name, store) => {
  afterEach(() => store.cleanUp());

  it("lets one holder at a time take a sandbox, and a dead holder's claim lapse at its expiry", async () => {
    await store.fresh();
    const app = await store.connection();
    const cli = await store.connection();
    const a = { owner: "engine-a", jobId: "job-a" };
    const b = { owner: "engine-b", jobId: "job-b" };
    expect(await app.claim([SANDBOX], a, T0, TTL)).toEqual(new Set([claimKey(SANDBOX)]));
    expect((await cli.claim([SANDBOX], b, later(1_000), TTL)).size, "held by another, unexpired").toBe(0);
    expect(await cli.holderOf(SANDBOX)).toMatchObject({ owner: "engine-a", jobId: "job-a" });

    // Renewed while held: still refused past the first expiry.
    await app.renew("engine-a", later(20_000), TTL);
    expect((await cli.claim([SANDBOX], b, later(40_000), TTL)).size).toBe(0);
    // The holder stops renewing (it died): the claim lapses and the other takes it.
    expect((await cli.claim([SANDBOX], b, later(51_000), TTL)).size).toBe(1);
    expect(await app.holderOf(SANDBOX)).toMatchObject({ owner: "engine-b" });
  }, 120_000);

  it("is released only by its holder, and taken over by the job that continues the holder's", async () => {
    await store.fresh();
    const claims = await store.connection();
    const other = await store.connection();
    const holder = { owner: "engine-a", jobId: "job-1" };
    await claims.claim([SANDBOX], holder, T0, TTL);
    await other.release(SANDBOX, { owner: "engine-b", jobId: "job-1" });
    expect(await claims.holderOf(SANDBOX), "a stranger cannot release it").not.toBeNull();

    const resume = { owner: "engine-b", jobId: "job-2" };
    expect((await other.claim([SANDBOX], resume, later(1_000), TTL)).size).toBe(0);
    expect(
      (await other.claim([SANDBOX], resume, later(1_000), TTL, ["job-1"])).size,
      "the resume of job-1",
    ).toBe(1);
    await other.release(SANDBOX, resume);
    expect(await claims.holderOf(SANDBOX)).toBeNull();

    await claims.claim([SANDBOX, { ...SANDBOX, sandboxId: "sb-2" }], holder, T0, TTL);
    await claims.releaseOwner("engine-a");
    expect(await claims.holderOf(SANDBOX)).toBeNull();
    expect(await claims.holderOf({ ...SANDBOX, sandboxId: "sb-2" })).toBeNull();
  }, 120_000);

  it("splits a batch claimed at once by two holders so that every sandbox has exactly one", async () => {
    await store.fresh();
    const first = await store.connection();
    const second = await store.connection();
    const sandboxes = Array.from({ length: 40 }, (_, index) => ({ ...SANDBOX, sandboxId: `sb-${index}` }));
    // The same sandbox twice in one batch is claimed once.
    const batch = [...sandboxes, sandboxes[0]!];
    const [a, b] = await Promise.all([
      first.claim(batch, { owner: "engine-a", jobId: "job-a" }, T0, TTL),
      second.claim([...batch].reverse(), { owner: "engine-b", jobId: "job-b" }, T0, TTL),
    ]);
    expect(a.size + b.size).toBe(sandboxes.length);
    for (const key of a) expect(b.has(key), key).toBe(false);
    for (const sandbox of sandboxes) {
      const owner = (await first.holderOf(sandbox))?.owner;
      expect(owner === "engine-a" ? a.has(claimKey(sandbox)) : b.has(claimKey(sandbox))).toBe(true);
    }
  }, 120_000);
});

describe("claims in the SQLite store", () => {
  it("frees the claims released in one turn in one transaction, and each only for its holder", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lk-claims-"));
    const db = openDatabase(dir);
    try {
      const claims = new SqliteClaims(db);
      const holder = { owner: "engine-a", jobId: "job-a" };
      const other = { ...SANDBOX, sandboxId: "sb-other" };
      const sandboxes = Array.from({ length: 50 }, (_, index) => ({ ...SANDBOX, sandboxId: `sb-${index}` }));
      await claims.claim(sandboxes, holder, T0, TTL);
      await claims.claim([other], { owner: "engine-b", jobId: "job-b" }, T0, TTL);
      // Checkpointed now, so the WAL's frames count only what the releases write.
      db.pragma("wal_checkpoint(TRUNCATE)");
      await Promise.all([
        ...sandboxes.map((sandbox) => claims.release(sandbox, holder)),
        claims.release(other, holder),
      ]);
      const [checkpoint] = db.pragma("wal_checkpoint(PASSIVE)") as { log: number }[];
      // One commit writes the pages it changed once (5 frames here); a commit per release wrote about 150.
      expect(checkpoint?.log).toBeLessThanOrEqual(10);
      for (const sandbox of sandboxes) expect(await claims.holderOf(sandbox)).toBeNull();
      expect((await claims.holderOf(other))?.owner).toBe("engine-b");
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
