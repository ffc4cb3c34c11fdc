import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { changedSinceFrom } from "./changed-rows.js";
import { type PaperclipDbSnapshot, PaperclipDbSource } from "./paperclip-db.js";
import { CHANGED_ROWS_OVERLAP_MS } from "./paperclip-db-changed.js";
import { createPaperclipSchema, PaperclipSeed } from "./testing/paperclip-db/seed.js";

// A real embedded PostgreSQL, as paperclip-db.test.ts runs: the reads of changed rows are SQL.
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

interface World {
  url: string;
  company: string;
  createos: string;
  run: string;
  /** Every CreateOS row's id in id order; `unusable` is among them (a status no lease may have). */
  leases: string[];
  /** The 30 rows under the CreateOS environment in the order seeded: every third is held by `run`. */
  seeded: string[];
  unusable: string;
  /** A CreateOS row under an environment that is SSH now (it stays a CreateOS row by its provider). */
  switched: string;
}

/**
 * A Paperclip with a CreateOS and an SSH environment, 30 CreateOS rows (one unusable, some held by a
 * running run with its agent, issue and workspace) and a local row; every `updated_at` an hour back,
 * so only what a test changes falls after the last read's watermark less the overlap.
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
    const agent = await seed.agent(company, "Builder");
    const run = await seed.run(company, "running", undefined, agent);
    const issue = await seed.issue(company, "Fix the login page", "ACME-12");
    const workspace = await seed.executionWorkspace(company, "login-fix worktree");
    const seeded = await seed.leases(
      Array.from({ length: 30 }, (_, at) => ({
        companyId: company,
        environmentId: createos,
        providerLeaseId: `sbx-${at}`,
        ...(at % 3 === 0 ? { heartbeatRunId: run, issueId: issue, executionWorkspaceId: workspace } : {}),
        metadata: {
          provider: "createos",
          sandboxId: `sbx-${at}`,
          companyId: company,
          marker: at,
          remoteCwd: "/workspace",
        },
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
    const unusable = seeded[7]!;
    await client.query("UPDATE environment_leases SET status = '' WHERE id = $1", [unusable]);
    for (const table of ["environment_leases", "heartbeat_runs", "agents", "issues", "execution_workspaces"])
      await client.query(`UPDATE ${table} SET updated_at = now() - interval '1 hour'`);
    await client.query("ANALYZE");
    return {
      url: db.url,
      company,
      createos,
      run,
      leases: [...seeded, switched].sort(),
      seeded,
      unusable,
      switched,
    };
  });
}

function sourceFor(url: string): PaperclipDbSource {
  // Small pages, so a read crosses page boundaries.
  return new PaperclipDbSource({ id: "paperclip-db", url, timeoutMs: 10_000, pageSize: 4 });
}

/** What a full read and a read of changed rows must agree on: everything but how far they read. */
function content(snapshot: PaperclipDbSnapshot) {
  const { readUpTo: _readUpTo, ...rest } = snapshot;
  return rest;
}

/** The ids whose row is not the very object the previous snapshot held. */
function replacedIds(previous: PaperclipDbSnapshot, next: PaperclipDbSnapshot): string[] {
  const before = new Map(previous.leases.map((lease) => [lease.id, lease]));
  return next.leases.filter((lease) => before.get(lease.id) !== lease).map((lease) => lease.id);
}

async function withSource<T>(url: string, body: (source: PaperclipDbSource) => Promise<T>): Promise<T> {
  const source = sourceFor(url);
  try {
    return await body(source);
  } finally {
    await source.close();
  }
}

describe("a read of the rows changed since the last snapshot", () => {
  it("reads only the changed and new rows, merged into what a full read returns, unchanged rows the same objects", async () => {
    const world = await seedWorld("changed_merge");
    await withSource(world.url, async (source) => {
      const first = await source.load();
      expect(first.readUpTo).toMatchObject({ fullPass: true, changedRows: world.leases.length });
      expect(first.problems.map((problem) => problem.message)).toEqual([
        expect.stringContaining(world.unusable),
      ]);
      // The watermark is the database's time of the read.
      expect(Math.abs(Date.parse(first.readUpTo!.watermark) - Date.now())).toBeLessThan(60_000);

      const updated = world.seeded[12]!;
      await withClient(world.url, async (client) => {
        await client.query(
          "UPDATE environment_leases SET status = 'released', released_at = now(), updated_at = now() WHERE id = $1",
          [updated],
        );
        await new PaperclipSeed(client, "instance-scoped").lease({
          id: "00000000-0000-4000-8000-000000000001",
          companyId: world.company,
          environmentId: world.createos,
          providerLeaseId: "sbx-new",
        });
      });
      const changed = await source.load({ changedSince: changedSinceFrom(first, false) });
      const full = await source.load();
      expect(changed.readUpTo).toMatchObject({ fullPass: false, changedRows: 2 });
      expect(content(changed)).toEqual(content(full));
      expect(changed.leases.map((lease) => lease.id)).toEqual(
        [
          ...world.leases.filter((id) => id !== world.unusable),
          "00000000-0000-4000-8000-000000000001",
        ].sort(),
      );
      expect(changed.leases.find((lease) => lease.id === updated)?.status).toBe("released");
      expect(replacedIds(first, changed).sort()).toEqual(["00000000-0000-4000-8000-000000000001", updated]);
      // The unusable row was not read again, and is still reported, at the place a full read gives it.
      expect(changed.problems).toEqual(full.problems);
      expect(changed.problems[0]!.index).toBe(first.problems[0]!.index + 1);
    });
  });

  it("keeps a deleted row until a full pass, which drops it", async () => {
    const world = await seedWorld("changed_deleted");
    await withSource(world.url, async (source) => {
      const first = await source.load();
      const deleted = world.seeded[4]!;
      await withClient(world.url, (client) =>
        client.query("DELETE FROM environment_leases WHERE id = $1", [deleted]),
      );
      const changed = await source.load({ changedSince: changedSinceFrom(first, false) });
      expect(changed.readUpTo).toMatchObject({ fullPass: false, changedRows: 0 });
      expect(changed.leases).toEqual(first.leases);
      expect(replacedIds(first, changed)).toEqual([]);

      const pass = await source.load({ changedSince: changedSinceFrom(changed, true) });
      expect(pass.readUpTo).toMatchObject({ fullPass: true, changedRows: world.leases.length - 1 });
      expect(pass.leases.map((lease) => lease.id)).not.toContain(deleted);
      expect(content(pass)).toEqual(content(await source.load()));
    });
  });

  it("picks up a change stamped before the last watermark that committed after the read (the overlap)", async () => {
    const world = await seedWorld("changed_overlap");
    const late = world.seeded[5]!;
    const stamped = world.seeded[10]!;
    const old = world.seeded[16]!;
    await withSource(world.url, async (source) => {
      // A Paperclip transaction stamps its row (its now(), before the read began) and commits only after
      // the read: the read cannot see it, and its stamp is older than the read's watermark.
      const writer = new pg.Client({ connectionString: world.url });
      await writer.connect();
      let first: PaperclipDbSnapshot;
      try {
        await writer.query("BEGIN");
        await writer.query(
          "UPDATE environment_leases SET status = 'expired', updated_at = now() WHERE id = $1",
          [late],
        );
        first = await source.load();
        await writer.query("COMMIT");
      } finally {
        await writer.end();
      }
      expect(first.leases.find((lease) => lease.id === late)?.status).toBe("active");
      const watermark = Date.parse(first.readUpTo!.watermark);
      // Stamps put by hand: one a minute before the watermark (inside the overlap), one well before it.
      await withClient(world.url, async (client) => {
        const at = (ms: number) => new Date(watermark - ms).toISOString();
        await client.query("UPDATE environment_leases SET status = 'failed', updated_at = $2 WHERE id = $1", [
          stamped,
          at(60_000),
        ]);
        await client.query("UPDATE environment_leases SET status = 'failed', updated_at = $2 WHERE id = $1", [
          old,
          at(CHANGED_ROWS_OVERLAP_MS + 5 * 60_000),
        ]);
      });
      const changed = await source.load({ changedSince: changedSinceFrom(first, false) });
      expect(changed.readUpTo).toMatchObject({ fullPass: false, changedRows: 2 });
      const byId = new Map(changed.leases.map((lease) => [lease.id, lease]));
      expect(byId.get(late)?.status).toBe("expired");
      expect(byId.get(stamped)?.status).toBe("failed");
      // Older than the overlap: left to the next full pass.
      expect(byId.get(old)).toBe(first.leases.find((lease) => lease.id === old));
      const pass = await source.load({ changedSince: changedSinceFrom(changed, true) });
      expect(pass.leases.find((lease) => lease.id === old)?.status).toBe("failed");
    });
  });

  it("re-reads rows whose run changed, drops a row that left CreateOS, and reports a row that became unusable", async () => {
    const world = await seedWorld("changed_joined");
    await withSource(world.url, async (source) => {
      const first = await source.load();
      const broken = world.seeded[1]!;
      await withClient(world.url, async (client) => {
        // Paperclip's run finishes without touching the lease rows it held: they are stranded now.
        await client.query("UPDATE heartbeat_runs SET status = 'failed', updated_at = now() WHERE id = $1", [
          world.run,
        ]);
        await client.query(
          `UPDATE environment_leases SET provider = 'ssh', metadata = '{"provider":"ssh"}', updated_at = now()
            WHERE id = $1`,
          [world.switched],
        );
        await client.query("UPDATE environment_leases SET status = '', updated_at = now() WHERE id = $1", [
          broken,
        ]);
      });
      const changed = await source.load({ changedSince: changedSinceFrom(first, false) });
      const full = await source.load();
      // The run's ten rows, and the broken one; the row that left is no longer a CreateOS row to read.
      expect(changed.readUpTo).toMatchObject({ fullPass: false, changedRows: 11 });
      expect(content(changed)).toEqual(content(full));
      expect(changed.leases.map((lease) => lease.id)).not.toContain(world.switched);
      expect(changed.leases.map((lease) => lease.id)).not.toContain(broken);
      const held = changed.leases.filter((lease) => lease.heartbeatRunId === world.run);
      expect(held).toHaveLength(10);
      for (const lease of held) expect(lease.heartbeatRunStatus).toBe("failed");
      expect(changed.problems.map((problem) => problem.message)).toEqual(
        [world.unusable, broken].sort().map((id) => expect.stringContaining(id)),
      );
    });
  });

  it("reads everything when an environment changed what its rows read as, or the watermark is not the database's", async () => {
    const world = await seedWorld("changed_basis");
    await withSource(world.url, async (source) => {
      const first = await source.load();
      await withClient(world.url, (client) =>
        client.query(
          // The drift check now compares remoteCwd: the scan must read it in every row's metadata.
          `UPDATE environments SET config = config || '{"remoteCwd":"/workspace"}', updated_at = now() WHERE id = $1`,
          [world.createos],
        ),
      );
      const changed = await source.load({ changedSince: changedSinceFrom(first, false) });
      expect(changed.readUpTo).toMatchObject({ fullPass: true, changedRows: world.leases.length });
      expect(changed.readUpTo!.basis).not.toBe(first.readUpTo!.basis);
      expect(content(changed)).toEqual(content(await source.load()));
      // A row seeded with remoteCwd, found by id: ids are random, so the first row may be the local one.
      const seededRow = (snapshot: typeof first) =>
        snapshot.leases.find((row) => row.id === world.seeded[0])!.metadata as Record<string, unknown>;
      expect(seededRow(changed).remoteCwd).toBe("/workspace");
      expect(seededRow(first).remoteCwd).toBeUndefined();
      // A watermark after the database's time now (its clock went back, or another database).
      const future = {
        ...changed,
        readUpTo: { ...changed.readUpTo!, watermark: "2999-01-01T00:00:00+00:00" },
      };
      const again = await source.load({ changedSince: changedSinceFrom(future, false) });
      expect(again.readUpTo).toMatchObject({ fullPass: true });
      // No changes at all: nothing read, every row the same object.
      const quiet = await source.load({ changedSince: changedSinceFrom(again, false) });
      expect(quiet.readUpTo).toMatchObject({ fullPass: false, changedRows: 0 });
      expect(replacedIds(again, quiet)).toEqual([]);
      expect(content(quiet)).toEqual(content(again));
    });
  });
});
