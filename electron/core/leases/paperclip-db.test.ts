import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isInUse, isStranded } from "../../../shared/domain/flags.js";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import {
  isTrimmableMetadata,
  keysLeftOutOfScan,
  scannedMetadata,
} from "../../../shared/domain/scanned-metadata.js";
import type { TestDatabase } from "../../../test/support/postgres.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { canonicalJson } from "../actions/plan/fingerprint.js";
import { runCli } from "../cli/run.js";
import { PaperclipDbSource, readOnlyTransaction } from "./paperclip-db.js";
import { withoutSecrets } from "./rows.js";
import { SourceError } from "./source.js";
import {
  createPaperclipSchema,
  type PaperclipSchemaShape,
  PaperclipSeed,
} from "./testing/paperclip-db/seed.js";

const postgres = postgresForSuite();

const API_URL = "https://api.sb.createos.sh";
const SECRET_CANARY = `canary-${randomBytes(8).toString("hex")}`;

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

function metadataFor(
  companyId: string,
  environmentId: string | null,
  sandbox: string,
): Record<string, unknown> {
  return {
    provider: "createos",
    apiUrl: API_URL,
    companyId,
    environmentId,
    sandboxId: sandbox,
    marker: randomUUID(),
    shape: "s-1vcpu-1gb",
    apiKey: SECRET_CANARY,
  };
}

interface World {
  db: TestDatabase;
  companies: { acme: string; globex: string };
  createosEnvironment: string;
  ids: {
    live: string;
    stranded: string;
    noRun: string;
    released: string;
    unknownStatus: string;
    switched: string;
    orphan: string | null;
    local: string;
  };
}

/** One small Paperclip: a CreateOS environment, one switched to SSH, a local one, and rows of each kind. */
async function seedWorld(shape: PaperclipSchemaShape): Promise<World> {
  const db = await postgres().createDatabase(shape.replace("-", "_"));
  return withClient(db.url, async (client) => {
    await createPaperclipSchema(client, shape);
    const seed = new PaperclipSeed(client, shape);
    const acme = await seed.company("Acme Robotics");
    const globex = await seed.company("Globex");
    await seed.secret(acme, "CREATEOS_API_KEY", SECRET_CANARY);
    const createosEnvironment = await seed.environment({
      companyId: acme,
      name: "CreateOS sandboxes",
      config: { provider: "createos", apiUrl: API_URL, shape: "s-1vcpu-1gb", apiKey: SECRET_CANARY },
      envVars: { CREATEOS_API_KEY: SECRET_CANARY },
    });
    const switchedEnvironment = await seed.environment({
      companyId: acme,
      name: "Moved to SSH",
      driver: "ssh",
      config: { host: "builder.internal" },
    });
    const localEnvironment = await seed.environment({ companyId: globex, name: "Local", driver: "local" });
    const builder = await seed.agent(acme, "Builder");
    const running = await seed.run(acme, "running", undefined, builder);
    const finished = await seed.run(acme, "succeeded");
    const issue = await seed.issue(acme, "Fix the login page", "ACME-12");
    const workspace = await seed.executionWorkspace(acme, "login-fix worktree");

    const row = (overrides: Parameters<PaperclipSeed["lease"]>[0]) => seed.lease(overrides);
    const live = await row({
      companyId: acme,
      environmentId: createosEnvironment,
      heartbeatRunId: running,
      issueId: issue,
      executionWorkspaceId: workspace,
      providerLeaseId: "sbx-live",
      metadata: metadataFor(acme, createosEnvironment, "sbx-live"),
    });
    const stranded = await row({
      companyId: acme,
      environmentId: createosEnvironment,
      heartbeatRunId: finished,
      providerLeaseId: "sbx-stranded",
      metadata: metadataFor(acme, createosEnvironment, "sbx-stranded"),
    });
    // A row whose run is gone (the run's deletion set heartbeat_run_id to null) and that still names the
    // issue it ran for: no run holds it, and it is no login session, which holds no issue.
    const noRun = await row({
      companyId: globex,
      environmentId: createosEnvironment,
      heartbeatRunId: null,
      issueId: randomUUID(),
      providerLeaseId: "sbx-probe",
      metadata: metadataFor(globex, createosEnvironment, "sbx-probe"),
    });
    const released = await row({
      companyId: acme,
      environmentId: createosEnvironment,
      status: "released",
      leasePolicy: "reuse_by_environment",
      providerLeaseId: "sbx-warm",
      releasedAt: "2026-11-30T10:00:00.000Z",
      metadata: metadataFor(acme, createosEnvironment, "sbx-warm"),
    });
    const unknownStatus = await row({
      companyId: acme,
      environmentId: createosEnvironment,
      status: "hibernating",
      leasePolicy: "reuse_later",
      cleanupStatus: "deferred",
      providerLeaseId: "sbx-odd",
      metadata: metadataFor(acme, createosEnvironment, "sbx-odd"),
    });
    const switched = await row({
      companyId: acme,
      environmentId: switchedEnvironment,
      status: "released",
      providerLeaseId: "sbx-switched",
      metadata: metadataFor(acme, switchedEnvironment, "sbx-switched"),
    });
    const local = await row({
      companyId: globex,
      environmentId: localEnvironment,
      provider: "local",
      metadata: { provider: "local" },
    });
    let orphan: string | null = null;
    if (shape === "instance-scoped") {
      const doomed = await seed.environment({
        name: "Deleted later",
        config: { provider: "createos", apiUrl: API_URL },
      });
      orphan = await row({
        companyId: acme,
        environmentId: doomed,
        status: "pending_cleanup",
        failureReason: "environment_deleted",
        providerLeaseId: "sbx-orphan",
        metadata: metadataFor(acme, doomed, "sbx-orphan"),
      });
      // ON DELETE SET NULL leaves the row behind with no environment: the orphan no REST route lists.
      await client.query("DELETE FROM environments WHERE id = $1", [doomed]);
    }
    return {
      db,
      companies: { acme, globex },
      createosEnvironment,
      ids: { live, stranded, noRun, released, unknownStatus, switched, orphan, local },
    };
  });
}

function sourceFor(url: string, pageSize?: number): PaperclipDbSource {
  return new PaperclipDbSource({
    id: "paperclip-db",
    url,
    timeoutMs: 10_000,
    ...(pageSize ? { pageSize } : {}),
  });
}

describe.each<PaperclipSchemaShape>(["company-scoped", "instance-scoped"])(
  "a %s Paperclip database",
  (shape) => {
    let world: World;
    let source: PaperclipDbSource;

    beforeAll(async () => {
      world = await seedWorld(shape);
      source = sourceFor(world.db.url);
    }, 60_000);

    afterAll(async () => {
      await source?.close();
    });

    it("reads every CreateOS row, says which shape it found, and leaves other drivers' rows out", async () => {
      const snapshot = await source.load();
      const expected = Object.entries(world.ids)
        .filter(([name, id]) => name !== "local" && id !== null)
        .map(([, id]) => id);
      expect(snapshot.leases.map((lease) => lease.id).sort()).toEqual([...expected].sort());
      expect(snapshot.problems).toEqual([]);
      expect(snapshot.schemaShape).toBe(shape);
      expect(snapshot.schemaNote).toContain(shape);
      expect(snapshot.companies).toEqual(
        expect.arrayContaining([
          { id: world.companies.acme, name: "Acme Robotics" },
          { id: world.companies.globex, name: "Globex" },
        ]),
      );
      expect(snapshot.environments.map((environment) => environment.id)).toEqual([world.createosEnvironment]);
      expect(snapshot.environments[0]!.companyId).toBe(
        shape === "company-scoped" ? world.companies.acme : null,
      );
    });

    it("keeps each column as Paperclip stored it, and unknown vocabularies as the strings they are", async () => {
      const snapshot = await source.load();
      const byId = new Map(snapshot.leases.map((lease) => [lease.id, lease]));
      const released = byId.get(world.ids.released)!;
      expect(released).toMatchObject({
        companyId: world.companies.acme,
        environmentId: world.createosEnvironment,
        status: "released",
        leasePolicy: "reuse_by_environment",
        provider: "createos",
        providerLeaseId: "sbx-warm",
      });
      expect(Date.parse(released.releasedAt!)).toBe(Date.parse("2026-11-30T10:00:00.000Z"));
      expect(Date.parse(released.acquiredAt)).not.toBeNaN();
      expect((released.metadata as Record<string, unknown>).sandboxId).toBe("sbx-warm");
      expect(byId.get(world.ids.unknownStatus)).toMatchObject({
        status: "hibernating",
        leasePolicy: "reuse_later",
        cleanupStatus: "deferred",
      });
    });

    it("shows a row under an environment that left CreateOS, and (where it can exist) an orphan row", async () => {
      const snapshot = await source.load();
      const byId = new Map(snapshot.leases.map((lease) => [lease.id, lease]));
      expect(byId.get(world.ids.switched)?.environmentChange).toBe("now ssh");
      expect(byId.get(world.ids.live)?.environmentChange).toBeUndefined();
      if (world.ids.orphan !== null) {
        expect(byId.get(world.ids.orphan)).toMatchObject({
          environmentId: null,
          environmentChange: "deleted",
          status: "pending_cleanup",
        });
      }
    });

    it("carries each row's run status: an active row whose run finished is stranded, not in use", async () => {
      const snapshot = await source.load();
      const byId = new Map(snapshot.leases.map((lease) => [lease.id, lease]));
      const live = byId.get(world.ids.live)!;
      const stranded = byId.get(world.ids.stranded)!;
      const noRun = byId.get(world.ids.noRun)!;
      expect(live.heartbeatRunStatus).toBe("running");
      expect(stranded.heartbeatRunStatus).toBe("succeeded");
      expect(noRun.heartbeatRunStatus).toBeNull();
      const now = new Date();
      expect([isInUse(live, now), isStranded(live)]).toEqual([true, false]);
      expect([isInUse(stranded, now), isStranded(stranded)]).toEqual([false, true]);
      expect([isInUse(noRun, now), isStranded(noRun)]).toEqual([false, true]);
      // The same row without its issue (and with no execution workspace, no expiry) is the shape of a
      // login session, which Paperclip acquires with no run at all: that one is in use.
      expect(noRun.executionWorkspaceId).toBeNull();
      expect(noRun.expiresAt).toBeNull();
      expect(isInUse({ ...noRun, issueId: null }, now)).toBe(true);
    });

    it("names what holds a row where the database has the tables: the run's agent, the issue, the workspace", async () => {
      const snapshot = await source.load();
      const byId = new Map(snapshot.leases.map((lease) => [lease.id, lease]));
      expect(byId.get(world.ids.live)).toMatchObject({
        agentName: "Builder",
        issueTitle: "Fix the login page",
        issueIdentifier: "ACME-12",
        executionWorkspaceName: "login-fix worktree",
      });
      // A run whose agent no row has, an issue that is gone, no workspace: read, and none found.
      expect(byId.get(world.ids.stranded)).toMatchObject({ agentName: null, executionWorkspaceName: null });
      expect(byId.get(world.ids.noRun)).toMatchObject({ agentName: null, issueTitle: null });
      expect(await source.readLease(world.ids.live)).toMatchObject({
        agentName: "Builder",
        issueIdentifier: "ACME-12",
        executionWorkspaceName: "login-fix worktree",
      });
    });

    it("re-reads one row and one environment by id", async () => {
      const lease = (await source.readLease(world.ids.stranded)) as LeaseRow;
      expect(lease).toMatchObject({ id: world.ids.stranded, heartbeatRunStatus: "succeeded" });
      expect((await source.readLease(world.ids.switched))?.environmentChange).toBe("now ssh");
      expect(await source.readLease(randomUUID())).toBeNull();
      expect(await source.readLease("not-a-uuid")).toBeNull();
      const environment = await source.readEnvironment(world.createosEnvironment);
      expect(environment).toMatchObject({ id: world.createosEnvironment, driver: "sandbox" });
      expect(environment?.config.provider).toBe("createos");
      expect(await source.readEnvironment(randomUUID())).toBeNull();
    });

    it("never brings a secret along: no secret table, no env_vars, no apiKey in a config or metadata", async () => {
      const snapshot = await source.load();
      const lease = await source.readLease(world.ids.live);
      const environment = await source.readEnvironment(world.createosEnvironment);
      expect(JSON.stringify([snapshot, lease, environment])).not.toContain(SECRET_CANARY);
    });
  },
);

/**
 * One company and environment, and a lease for each of `ids` written last id first, so the table's own
 * order is the reverse of the ids'; the `unusable` ones get a status no lease may have.
 */
async function seedLastIdFirst(
  url: string,
  ids: readonly string[],
  unusable: readonly string[],
): Promise<void> {
  await withClient(url, async (client) => {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    const company = await seed.company("Order");
    const environment = await seed.environment({ name: "CreateOS", config: { provider: "createos" } });
    await seed.leases(
      [...ids].reverse().map((id, at) => ({
        id,
        companyId: company,
        environmentId: environment,
        providerLeaseId: `sbx-${at}`,
      })),
    );
    await client.query("UPDATE environment_leases SET status = '' WHERE id = ANY($1::uuid[])", [unusable]);
    await client.query("ANALYZE");
  });
}

describe("a database without the tables that name a row's holders", () => {
  it("still scans and re-reads, with only the names it has tables for", async () => {
    const db = await postgres().createDatabase("without_names");
    const ids = await withClient(db.url, async (client) => {
      await createPaperclipSchema(client, "instance-scoped");
      const seed = new PaperclipSeed(client, "instance-scoped");
      const company = await seed.company("Acme");
      const environment = await seed.environment({ name: "CreateOS", config: { provider: "createos" } });
      const agent = await seed.agent(company, "Builder");
      const run = await seed.run(company, "running", undefined, agent);
      const issue = await seed.issue(company, "Fix the login page", "ACME-12");
      const lease = await seed.lease({
        companyId: company,
        environmentId: environment,
        heartbeatRunId: run,
        issueId: issue,
      });
      // An older Paperclip: no identifier yet; a role that may not read agents or workspaces.
      await client.query("DROP TABLE agents, execution_workspaces");
      await client.query("ALTER TABLE issues DROP COLUMN identifier");
      return { lease };
    });
    const source = sourceFor(db.url);
    try {
      const snapshot = await source.load();
      expect(snapshot.problems).toEqual([]);
      const row = snapshot.leases.find((lease) => lease.id === ids.lease)!;
      expect(row.issueTitle).toBe("Fix the login page");
      expect(row.heartbeatRunStatus).toBe("running");
      for (const name of ["agentName", "issueIdentifier", "executionWorkspaceName"])
        expect(row).not.toHaveProperty(name);
      const again = (await source.readLease(ids.lease))!;
      expect(again.issueTitle).toBe("Fix the login page");
      expect(again).not.toHaveProperty("agentName");
    } finally {
      await source.close();
    }
  });
});

describe("reading inside a READ ONLY transaction", () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await postgres().createDatabase("readonly");
    await withClient(db.url, (client) => createPaperclipSchema(client, "instance-scoped"));
  });

  it("refuses a write attempted inside the source's transaction, and nothing is written", async () => {
    await withClient(db.url, async (client) => {
      const attempt = readOnlyTransaction(client, 5_000, (inside) =>
        inside.query("INSERT INTO companies (name) VALUES ('written by a reader')"),
      );
      await expect(attempt).rejects.toMatchObject({ code: "25006" });
      const count = await client.query<{ n: string }>("SELECT count(*) AS n FROM companies");
      expect(count.rows[0]!.n).toBe("0");
    });
  });

  it("cancels a statement that outlasts the timeout", async () => {
    await withClient(db.url, async (client) => {
      const attempt = readOnlyTransaction(client, 50, (inside) => inside.query("SELECT pg_sleep(5)"));
      await expect(attempt).rejects.toMatchObject({ code: "57014" });
    });
  });
});

describe("keyset pagination", () => {
  it("reads every row once across many pages", async () => {
    const db = await postgres().createDatabase("pages");
    const ids = await withClient(db.url, async (client) => {
      await createPaperclipSchema(client, "instance-scoped");
      const seed = new PaperclipSeed(client, "instance-scoped");
      const company = await seed.company("Paged");
      const environment = await seed.environment({ name: "CreateOS", config: { provider: "createos" } });
      return seed.leases(
        Array.from({ length: 53 }, (_, index) => ({
          companyId: company,
          environmentId: environment,
          status: "released",
          providerLeaseId: `sbx-${index}`,
        })),
      );
    });
    const source = sourceFor(db.url, 7);
    try {
      const snapshot = await source.load();
      const read = snapshot.leases.map((lease) => lease.id);
      expect(read).toHaveLength(53);
      expect(new Set(read)).toEqual(new Set(ids));

      // A row Leasekeeper cannot use (an empty status) is a problem naming its id; the others still load.
      const broken = [...ids].sort()[20]!;
      await withClient(db.url, (client) =>
        client.query("UPDATE environment_leases SET status = '' WHERE id = $1", [broken]),
      );
      const again = await source.load();
      expect(again.leases).toHaveLength(52);
      expect(again.problems).toHaveLength(1);
      expect(again.problems[0]!.message).toContain(broken);
      expect(again.problems[0]!.index).toBe(20);
    } finally {
      await source.close();
    }
  });
});

describe("a read that is stopped", () => {
  it("leaves no transaction or cursor behind on the pool's connections: the next read succeeds", async () => {
    const db = await postgres().createDatabase("stopped");
    await withClient(db.url, async (client) => {
      await createPaperclipSchema(client, "instance-scoped");
      const seed = new PaperclipSeed(client, "instance-scoped");
      const company = await seed.company("Stopped");
      const environment = await seed.environment({ name: "CreateOS", config: { provider: "createos" } });
      await seed.leases(
        Array.from({ length: 12 }, (_, index) => ({
          companyId: company,
          environmentId: environment,
          providerLeaseId: `sbx-${index}`,
        })),
      );
    });
    const source = sourceFor(db.url, 2);
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const stop = new AbortController();
        const reason = new Error("stopped by the operator");
        stop.abort(reason);
        // Both halves' cursors are open when the stop is seen; the transactions must be rolled back.
        await expect(source.load({ signal: stop.signal })).rejects.toBe(reason);
      }
      const snapshot = await source.load();
      expect(snapshot.leases).toHaveLength(12);
      expect(snapshot.problems).toEqual([]);
    } finally {
      await source.close();
    }
  });
});

describe("reading the id range in two halves", () => {
  it("reads the rows on both sides of the split and at its edges, in id order, with one index per row", async () => {
    const db = await postgres().createDatabase("halves");
    const ids = [
      "00000000-0000-0000-0000-000000000001",
      "3fffffff-0000-4000-8000-000000000000",
      "7fffffff-ffff-ffff-ffff-fffffffffffe",
      "7fffffff-ffff-ffff-ffff-ffffffffffff",
      "80000000-0000-0000-0000-000000000000",
      "80000000-0000-0000-0000-000000000001",
      "c0000000-0000-4000-8000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ];
    // Unusable rows in each half: each problem's index is the row's place in the whole scan.
    await seedLastIdFirst(db.url, ids, [ids[1]!, ids[6]!]);
    // A role allowed one connection gets both halves read over it, one after the other.
    await withClient(db.url, (client) =>
      client.query(`CREATE ROLE one_connection LOGIN PASSWORD 'one' CONNECTION LIMIT 1;
        GRANT SELECT ON ALL TABLES IN SCHEMA public TO one_connection;`),
    );
    const readers = [1, 2, 100].map((pageSize) => ({ url: db.url, pageSize }));
    readers.push({ url: db.urlFor("one_connection", "one"), pageSize: 2 });
    for (const { url, pageSize } of readers) {
      const source = sourceFor(url, pageSize);
      try {
        const snapshot = await source.load();
        expect(snapshot.leases.map((lease) => lease.id)).toEqual(ids.filter((_, at) => at !== 1 && at !== 6));
        expect(snapshot.problems.map((problem) => problem.index)).toEqual([1, 6]);
        expect(snapshot.problems[1]!.message).toContain(ids[6]);
      } finally {
        await source.close();
      }
    }
  });

  it("hands the rows back in id order, with each problem at its place, whatever order the server reads them in", async () => {
    const db = await postgres().createDatabase("order");
    const ids = Array.from({ length: 3_000 }, () => randomUUID()).sort();
    await seedLastIdFirst(db.url, ids, [ids[10]!, ids[1_500]!, ids[2_990]!]);
    const source = sourceFor(db.url, 250);
    try {
      const snapshot = await source.load();
      const unusable = new Set([10, 1_500, 2_990]);
      expect(snapshot.leases.map((lease) => lease.id)).toEqual(ids.filter((_, at) => !unusable.has(at)));
      expect(snapshot.problems.map((problem) => problem.index)).toEqual([10, 1_500, 2_990]);
      expect(snapshot.problems.map((problem) => problem.message.includes(ids[problem.index]!))).toEqual([
        true,
        true,
        true,
      ]);
    } finally {
      await source.close();
    }
  });

  it("shares one snapshot: the second transaction does not see a row committed after the first began", async () => {
    const db = await postgres().createDatabase("snapshot");
    await withClient(db.url, (client) => createPaperclipSchema(client, "instance-scoped"));
    const count = async (client: pg.ClientBase) =>
      Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM companies")).rows[0]!.n);
    await withClient(db.url, (first) =>
      withClient(db.url, (second) =>
        withClient(db.url, async (writer) => {
          const seen = await readOnlyTransaction(first, 5_000, async (inside) => {
            const before = await count(inside);
            const snapshot = (await inside.query<{ id: string }>("SELECT pg_export_snapshot() AS id"))
              .rows[0]!.id;
            await writer.query("INSERT INTO companies (name) VALUES ('committed meanwhile')");
            const shared = await readOnlyTransaction(second, 5_000, count, { snapshot });
            const fresh = await readOnlyTransaction(second, 5_000, count);
            return { before, shared, fresh };
          });
          expect(seen).toEqual({ before: 0, shared: 0, fresh: 1 });
          await expect(
            readOnlyTransaction(second, 5_000, count, { snapshot: "x'; DROP TABLE companies; --" }),
          ).rejects.toThrow("not a snapshot id");
        }),
      ),
    );
  });
});

describe("a scan leaves the host's bookkeeping out of the metadata; a row read by id comes whole", () => {
  const HOST_BOOKKEEPING = {
    agentId: "agent-1",
    driver: "sandbox",
    executionWorkspaceMode: "isolated",
    pluginId: "plugin-1",
    pluginKey: "paperclip-plugin-createos",
    sandboxProviderPlugin: true,
    reusableSandboxLease: { version: 1, runtimeFingerprint: "f".repeat(32) },
    remoteCwd: "/paperclip-workspace",
    shellCommand: "bash",
  };
  let db: TestDatabase;
  let source: PaperclipDbSource;
  const inserted = new Map<string, unknown>();
  const configs: Record<string, unknown>[] = [
    { provider: "createos", apiUrl: API_URL, shape: "s-1vcpu-1gb" },
    // A config that sets one of the host's keys: the drift check compares it, so a scan keeps it.
    { provider: "createos", apiUrl: API_URL, remoteCwd: "/srv/work" },
  ];

  beforeAll(async () => {
    db = await postgres().createDatabase("scanned_metadata");
    await withClient(db.url, async (client) => {
      await createPaperclipSchema(client, "instance-scoped");
      const seed = new PaperclipSeed(client, "instance-scoped");
      const company = await seed.company("Acme");
      const environments = [];
      for (const [at, config] of configs.entries())
        environments.push(await seed.environment({ name: `CreateOS ${at}`, config }));
      const plugin = (environmentId: string) => ({
        ...metadataFor(company, environmentId, "sbx"),
        ...HOST_BOOKKEEPING,
        addedByHand: { kept: true },
      });
      const variants: unknown[] = [
        plugin(environments[0]!),
        plugin(environments[1]!),
        JSON.parse(`{"__proto__": {"polluted": true}, "provider": "createos", "pluginId": "p"}`),
        // Not the plugin's shape: read whole, bookkeeping and all, since that is what is shown of it.
        { ...HOST_BOOKKEEPING },
        { provider: null, companyId: null, ...HOST_BOOKKEEPING },
        { providerMetadata: { ...metadataFor(company, environments[0]!, "sbx") }, ...HOST_BOOKKEEPING },
        "a string",
        [HOST_BOOKKEEPING],
        null,
      ];
      for (const [at, metadata] of variants.entries()) {
        const id = await seed.lease({
          companyId: company,
          environmentId: environments[at % 2]!,
          providerLeaseId: `sbx-${at}`,
          metadata,
        });
        inserted.set(id, metadata);
      }
    });
    source = sourceFor(db.url);
  });

  afterAll(async () => {
    await source?.close();
  });

  it("leaves out only the host's bookkeeping, only of the plugin's shape, and marks those rows", async () => {
    const snapshot = await source.load();
    const leftOut = keysLeftOutOfScan(configs.flatMap((config) => Object.keys(config)));
    expect(leftOut).not.toContain("remoteCwd");
    expect(snapshot.leases).toHaveLength(inserted.size);
    let trimmed = 0;
    for (const lease of snapshot.leases) {
      const whole = inserted.get(lease.id);
      const expected = withoutSecrets(scannedMetadata(whole, leftOut));
      expect(canonicalJson(lease.metadata), JSON.stringify(whole)).toBe(canonicalJson(expected));
      expect(lease.partialMetadata === true, JSON.stringify(whole)).toBe(isTrimmableMetadata(whole));
      if (lease.partialMetadata) trimmed += 1;
    }
    // The two plugin rows and the one whose hostile key names an owner; every other variant came whole.
    expect(trimmed).toBe(3);
    const plugin = snapshot.leases.find((lease) => lease.providerLeaseId === "sbx-0")!;
    expect(plugin.metadata).not.toHaveProperty("reusableSandboxLease");
    expect(plugin.metadata).toHaveProperty("addedByHand", { kept: true });
    expect(snapshot.leases.find((lease) => lease.providerLeaseId === "sbx-1")!.metadata).toHaveProperty(
      "remoteCwd",
      "/paperclip-workspace",
    );
  });

  it("reads a row by id with all of its metadata and no mark", async () => {
    for (const [id, whole] of inserted) {
      const lease = (await source.readLease(id))!;
      expect(canonicalJson(lease.metadata)).toBe(canonicalJson(withoutSecrets(whole)));
      expect(lease).not.toHaveProperty("partialMetadata");
    }
  });
});

describe("the connection string stays secret", () => {
  const password = `pw-${randomBytes(12).toString("hex")}`;
  let db: TestDatabase;

  beforeAll(async () => {
    db = await postgres().createDatabase("leastprivilege");
    const docs = await readFile(new URL("../../../docs/paperclip-database.md", import.meta.url), "utf8");
    const grants = /## A least-privilege role[\s\S]*?```sql\n([\s\S]*?)```/.exec(docs)?.[1];
    if (grants === undefined) throw new Error("docs/paperclip-database.md lost its GRANT block");
    await withClient(db.url, async (client) => {
      await createPaperclipSchema(client, "instance-scoped");
      const seed = new PaperclipSeed(client, "instance-scoped");
      const company = await seed.company("Least privilege");
      await seed.secret(company, "CREATEOS_API_KEY", SECRET_CANARY);
      const environment = await seed.environment({ name: "CreateOS", config: { provider: "createos" } });
      const agent = await seed.agent(company, "Reader's agent");
      await seed.lease({
        companyId: company,
        environmentId: environment,
        providerLeaseId: "sbx-1",
        heartbeatRunId: await seed.run(company, "running", undefined, agent),
        issueId: await seed.issue(company, "Least privilege", "LP-1"),
      });
      await seed.plugin({ version: "0.2.0", packagePath: `/srv/${SECRET_CANARY}` });
      await client.query(
        grants.replaceAll("change-me", password).replace("DATABASE paperclip", `DATABASE "${db.name}"`),
      );
    });
  });

  it("works with exactly the documented grants, which do not reach the secret table", async () => {
    const url = db.urlFor("leasekeeper_reader", password);
    const source = sourceFor(url);
    try {
      const snapshot = await source.load();
      expect(snapshot.leases).toHaveLength(1);
      // The documented grants name what holds a row.
      expect(snapshot.leases[0]).toMatchObject({
        agentName: "Reader's agent",
        issueTitle: "Least privilege",
      });
      // The documented grant on plugins' three columns is enough to tell the installed plugin.
      expect(snapshot.installedPlugin).toMatchObject({ version: "0.2.0", generation: "createos-0.2" });
      expect(JSON.stringify(snapshot)).not.toContain(password);
      expect(JSON.stringify(snapshot)).not.toContain(SECRET_CANARY);
      await withClient(url, async (client) => {
        await expect(client.query("SELECT value FROM company_secrets")).rejects.toMatchObject({
          code: "42501",
        });
      });
    } finally {
      await source.close();
    }
  });

  it.each<[string, (url: string) => string, RegExp]>([
    ["a wrong password", (url) => url.replace(password, `${password}-wrong`), /refused the login/],
    ["a database that does not exist", (url) => url.replace(`/${db?.name}`, "/no_such_db"), /does not exist/],
    ["a port nobody listens on", (url) => url.replace(`:${postgres().port}/`, ":1/"), /could not be reached/],
  ])("an error from %s names the Paperclip database, never the URL", async (_, broken, expected) => {
    const url = broken(db.urlFor("leasekeeper_reader", password));
    const source = sourceFor(url);
    try {
      const error = await source.load().then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(SourceError);
      const message = (error as Error).message;
      expect(message).toMatch(expected);
      const everything = `${message} ${(error as Error).stack ?? ""} ${JSON.stringify(error)}`;
      expect(everything).not.toContain(password);
      expect(everything).not.toContain(url);
      expect(everything).not.toContain("leasekeeper_reader");
    } finally {
      await source.close();
    }
  });
});

describe("leasekeeper scan over a paperclip-db source", () => {
  it("judges the database's rows, says which shape it read, and never prints the URL", async () => {
    const world = await seedWorld("instance-scoped");
    const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-paperclip-db-cli-"));
    try {
      await writeFile(
        path.join(dir, "leasekeeper.config.json"),
        JSON.stringify({
          sources: [{ kind: "paperclip-db", urlEnv: "PAPERCLIP_DATABASE_URL" }],
          dataDir: "data",
        }),
      );
      const out = { stdout: "", stderr: "" };
      const code = await runCli(["scan", "--json"], {
        stdout: { write: (text: string) => (out.stdout += text) },
        stderr: { write: (text: string) => (out.stderr += text) },
        env: { PAPERCLIP_DATABASE_URL: world.db.url },
        cwd: dir,
      });
      expect(code).toBe(0);
      expect(out.stderr).toContain("read instance-scoped environments");
      for (const id of [world.ids.live, world.ids.stranded, world.ids.orphan!, world.ids.switched]) {
        expect(out.stdout).toContain(id);
      }
      const password = new URL(world.db.url).password;
      expect(`${out.stdout}${out.stderr}`).not.toContain(password);
      expect(`${out.stdout}${out.stderr}`).not.toContain(SECRET_CANARY);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
