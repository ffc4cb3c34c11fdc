import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { TestDatabase } from "../../../test/support/postgres.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { PaperclipDbSource } from "./paperclip-db.js";
import { SourceError } from "./source.js";
import type { ReadSince } from "./source-read.js";
import { createPaperclipSchema, PaperclipSeed } from "./testing/paperclip-db/seed.js";
import { readToEnd } from "./testing/read-all.js";

// A real embedded PostgreSQL, as paperclip-db.test.ts runs: the read's cursors and counts are SQL.
const postgres = postgresForSuite();

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

// Unusable rows on both sides of the split at 7fff…, the first and last of them at the ends of the range.
const UNUSABLE = [
  "00000000-0000-4000-8000-000000000001",
  "3fffffff-0000-4000-8000-000000000000",
  "c0000000-0000-4000-8000-000000000000",
];

interface World {
  db: TestDatabase;
  company: string;
  createos: string;
  /** Every CreateOS row's id, sorted. */
  ids: string[];
  /** A CreateOS row under an SSH environment: it is one by its provider, until that changes. */
  switched: string;
}

/**
 * A Paperclip with 60 CreateOS rows (the `UNUSABLE` ones with a status no lease may have), one more under
 * an SSH environment and a local row; every `updated_at` an hour back, so only what a test changes falls
 * after a read's watermark less the overlap.
 */
async function seedWorld(name: string): Promise<World> {
  const db = await postgres().createDatabase(name);
  return withClient(db.url, async (client) => {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    const company = await seed.company("Acme Robotics");
    const createos = await seed.environment({
      name: "CreateOS sandboxes",
      config: { provider: "createos", apiUrl: "https://api.sb.createos.sh" },
    });
    const ssh = await seed.environment({ name: "SSH", driver: "ssh", config: { host: "builder.internal" } });
    const local = await seed.environment({ name: "Local", driver: "local" });
    const seeded = await seed.leases(
      [...UNUSABLE, ...Array.from({ length: 57 }, () => randomUUID())].map((id, at) => ({
        id,
        companyId: company,
        environmentId: createos,
        providerLeaseId: `sbx-${at}`,
        metadata: { provider: "createos", sandboxId: `sbx-${at}`, companyId: company },
      })),
    );
    const switched = await seed.lease({
      companyId: company,
      environmentId: ssh,
      status: "released",
      providerLeaseId: "sbx-switched",
      metadata: { provider: "createos", sandboxId: "sbx-switched" },
    });
    await seed.lease({ companyId: company, environmentId: local, provider: "local", metadata: {} });
    await client.query("UPDATE environment_leases SET status = '' WHERE id = ANY($1::uuid[])", [UNUSABLE]);
    for (const table of ["environment_leases", "heartbeat_runs", "agents", "issues", "execution_workspaces"])
      await client.query(`UPDATE ${table} SET updated_at = now() - interval '1 hour'`);
    await client.query("ANALYZE");
    return { db, company, createos, ids: [...seeded, switched].sort(), switched };
  });
}

function sourceFor(url: string, pageSize = 4): PaperclipDbSource {
  return new PaperclipDbSource({ id: "paperclip-db", url, timeoutMs: 10_000, pageSize });
}

/** The source's sessions that hold a transaction open: none, once a read has let go. */
async function openTransactions(db: TestDatabase): Promise<number> {
  return withClient(db.url, async (client) => {
    const result = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'leasekeeper' AND state <> 'idle'`,
    );
    return result.rows[0]!.n;
  });
}

async function withSource<T>(url: string, body: (source: PaperclipDbSource) => Promise<T>): Promise<T> {
  const source = sourceFor(url);
  try {
    return await body(source);
  } finally {
    await source.close();
  }
}

describe("a read of Paperclip's database, page by page", () => {
  it("hands over what load gathers: its pages sorted by id are the rows, its end the problems at the same places", async () => {
    const world = await seedWorld("read_whole");
    await withClient(world.db.url, (client) =>
      client.query(`CREATE ROLE one_connection LOGIN PASSWORD 'one' CONNECTION LIMIT 1;
        GRANT SELECT ON ALL TABLES IN SCHEMA public TO one_connection;`),
    );
    // Both halves at once, and a role allowed one connection that reads both over it.
    for (const url of [world.db.url, world.db.urlFor("one_connection", "one")]) {
      await withSource(url, async (source) => {
        const snapshot = await source.load();
        const { read, pages, rows, end } = await readToEnd(await source.read());
        expect(read.scope).toBe("whole");
        expect(read.order).toBe("by-id");
        expect(read.environments).toStrictEqual(snapshot.environments);
        expect(read.companies).toStrictEqual(snapshot.companies);
        expect(read.installedPlugin).toStrictEqual(snapshot.installedPlugin);
        expect(read.note).toBe(snapshot.schemaNote);
        expect(pages.length).toBeGreaterThan(10);
        expect(rows).toStrictEqual(snapshot.leases);
        expect(end.problems).toStrictEqual(snapshot.problems);
        expect(end.left).toEqual([]);
        expect(end.readUpTo).toMatchObject({ fullPass: true, changedRows: world.ids.length });
        // Each unusable row at its place among every row in id order.
        expect(end.problems.map((problem) => problem.index)).toEqual(
          UNUSABLE.map((id) => world.ids.indexOf(id)),
        );
        expect(end.problems.map((problem) => problem.message)).toEqual(
          UNUSABLE.map((id) => expect.stringContaining(id)),
        );
      });
    }
  });

  it("reads only what changed since: the changed rows, the rows that left or became unusable, problems placed as a full read places them", async () => {
    const world = await seedWorld("read_changed");
    await withSource(world.db.url, async (source) => {
      const first = await source.load();
      const since: ReadSince = {
        watermark: first.readUpTo!.watermark,
        basis: first.readUpTo!.basis!,
        problems: first.problems,
        fullPass: false,
      };
      const usable = world.ids.filter((id) => !UNUSABLE.includes(id) && id !== world.switched);
      const [updated, broken, deleted] = [usable[5]!, usable[30]!, usable[12]!];
      const fixed = UNUSABLE[1]!;
      const added = "00000000-0000-4000-8000-000000000000";
      await withClient(world.db.url, async (client) => {
        const touch = (set: string, id: string) =>
          client.query(`UPDATE environment_leases SET ${set}, updated_at = now() WHERE id = $1`, [id]);
        await touch("status = 'expired'", updated);
        await touch("status = ''", broken);
        await touch("status = 'active'", fixed);
        await touch(`provider = 'ssh', metadata = '{"provider":"ssh"}'`, world.switched);
        await client.query("DELETE FROM environment_leases WHERE id = $1", [deleted]);
        await new PaperclipSeed(client, "instance-scoped").lease({
          id: added,
          companyId: world.company,
          environmentId: world.createos,
          providerLeaseId: "sbx-new",
        });
      });

      const { read, rows, end } = await readToEnd(await source.read({ since }));
      expect(read.scope).toBe("changed");
      expect(rows.map((row) => row.id)).toEqual([added, updated, fixed].sort());
      expect(rows.find((row) => row.id === updated)?.status).toBe("expired");
      // The row that is no CreateOS row any more, and the one that cannot be used now. A deleted row
      // is not seen until a full pass.
      expect([...end.left].sort()).toEqual([world.switched, broken].sort());
      expect(end.readUpTo).toMatchObject({ fullPass: false, changedRows: 4 });

      const full = await source.load();
      // The row fixed since is read again and no longer reported; the others still stand, the new
      // unusable row among them, each at the place the full read gives it.
      expect(end.problems).toStrictEqual(full.problems);
      expect(end.problems.map((problem) => problem.message)).toEqual(
        [UNUSABLE[0]!, UNUSABLE[2]!, broken].sort().map((id) => expect.stringContaining(id)),
      );
      expect(end.problems[0]!.index).toBe(1);

      // load() lays the same read over the rows it read from, as before.
      const changed = await source.load({
        changedSince: { rows: new Map(first.leases.map((row) => [row.id, row])), ...since },
      });
      expect(changed.problems).toStrictEqual(full.problems);
      expect(changed.leases.map((row) => row.id)).toEqual(
        [...full.leases.map((row) => row.id), deleted].sort(),
      );
    });
  });

  it("says nothing new when nothing changed: no page, nothing left, the problems as the last read placed them", async () => {
    const world = await seedWorld("read_quiet");
    await withSource(world.db.url, async (source) => {
      const first = await source.load();
      const { read, pages, end } = await readToEnd(
        await source.read({
          since: {
            watermark: first.readUpTo!.watermark,
            basis: first.readUpTo!.basis!,
            problems: first.problems,
            fullPass: false,
          },
        }),
      );
      expect(read.scope).toBe("changed");
      expect(pages).toEqual([]);
      expect(end.left).toEqual([]);
      expect(end.problems).toStrictEqual(first.problems);
      expect(end.readUpTo).toMatchObject({ fullPass: false, changedRows: 0 });
    });
  });
});

describe("a read of Paperclip's database that is not taken to its end", () => {
  const stops: [string, (read: Awaited<ReturnType<PaperclipDbSource["read"]>>) => Promise<void>][] = [
    [
      "a reader that breaks out after the first page",
      async (read) => {
        for await (const _page of read.pages()) break;
      },
    ],
    [
      "a reader whose loop throws",
      async (read) => {
        await expect(
          (async () => {
            for await (const _page of read.pages()) throw new Error("the store refused the page");
          })(),
        ).rejects.toThrow("the store refused the page");
      },
    ],
    [
      "a reader that cancels after the first page",
      async (read) => {
        const pages = read.pages()[Symbol.asyncIterator]();
        await pages.next();
        await read.cancel();
      },
    ],
    ["a reader that cancels before any page", (read) => read.cancel()],
  ];

  it.each(stops)("%s leaves no transaction open, and the next reads run", async (_, stop) => {
    const world = await seedWorld(`read_stopped_${randomUUID().slice(0, 8)}`);
    const source = sourceFor(world.db.url, 2);
    try {
      const read = await source.read();
      // Held open while the read stands, so the count below is the one that matters.
      expect(await openTransactions(world.db)).toBeGreaterThan(0);
      await stop(read);
      expect(await openTransactions(world.db)).toBe(0);
      // Two reads at once: each needs the pool's connections back.
      const [one, two] = await Promise.all([source.load(), source.load()]);
      expect(one.leases).toHaveLength(world.ids.length - UNUSABLE.length);
      expect(two.leases).toStrictEqual(one.leases);
    } finally {
      // The pool ends only once every connection it lent is back.
      await Promise.race([
        source.close(),
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error("a connection was never handed back")), 5_000),
        ),
      ]);
    }
  });
});

describe("a read whose connections the server ends", () => {
  it("fails with the source's error once a fetch fails, names nothing of the connection, and the next read runs", async () => {
    const world = await seedWorld(`read_ended_${randomUUID().slice(0, 8)}`);
    const source = sourceFor(world.db.url, 2);
    // An `error` event no one listens for is thrown out of the process: heard here, so this test fails.
    const uncaught: unknown[] = [];
    const hear = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", hear);
    try {
      const read = await source.read();
      const pages = read.pages()[Symbol.asyncIterator]();
      expect((await pages.next()).done).toBe(false);
      const ended = await withClient(world.db.url, async (client) => {
        const result = await client.query<{ ended: boolean }>(
          `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'leasekeeper'`,
        );
        return result.rows.filter((row) => row.ended).length;
      });
      expect(ended).toBeGreaterThan(0);
      const failure = await (async () => {
        for (let next = await pages.next(); !next.done; next = await pages.next());
      })().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SourceError);
      expect((failure as SourceError).code).toBe("unreachable");
      expect((failure as SourceError).reason).toMatch(/^the Paperclip database .* while reading leases\.$/);
      expect((failure as SourceError).message).not.toContain(new URL(world.db.url).password);

      const again = await source.load();
      expect(again.leases).toHaveLength(world.ids.length - UNUSABLE.length);
      expect(uncaught.map(String)).toEqual([]);
    } finally {
      process.off("uncaughtException", hear);
      await source.close();
    }
  });
});
