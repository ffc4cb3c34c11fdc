import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { SandboxListing } from "../../../shared/domain/inventory.js";
import { predictRelease } from "../../../shared/domain/plugin-generations.js";
import { reconcile } from "../../../shared/domain/reconcile.js";
import type { TestDatabase } from "../../../test/support/postgres.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { PaperclipDbSource } from "./paperclip-db.js";
import { CREATEOS_PLUGIN_KEY } from "./paperclip-db-plugin.js";
import {
  createPaperclipSchema,
  type PaperclipSchemaShape,
  PaperclipSeed,
  type PluginSeed,
} from "./testing/paperclip-db/seed.js";

const postgres = postgresForSuite();

const API_URL = "https://api.sb.createos.sh";
// Values only manifest_json and package_path hold: the source must never bring them along.
const CANARY = `canary-${randomBytes(8).toString("hex")}`;

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

function sourceFor(url: string): PaperclipDbSource {
  return new PaperclipDbSource({ id: "paperclip-db", url, timeoutMs: 10_000 });
}

interface Instance {
  db: TestDatabase;
  /** The released, reusable lease whose sandbox CreateOS lists as running. */
  warm: string;
}

/**
 * One Paperclip instance with a CreateOS environment and a released reusable lease on a running sandbox,
 * the CreateOS plugin installed as `plugin` says (or none), and `prepare` run last on the owner's
 * connection (to drop the table, or add a role).
 */
async function instance(
  options: {
    shape?: PaperclipSchemaShape;
    plugin?: PluginSeed | null;
    leaseMetadata?: Record<string, unknown>;
    prepare?: (client: pg.Client, db: TestDatabase) => Promise<void>;
  } = {},
): Promise<Instance> {
  const shape = options.shape ?? "instance-scoped";
  const db = await postgres().createDatabase("plugins");
  const warm = await withClient(db.url, async (client) => {
    await createPaperclipSchema(client, shape);
    const seed = new PaperclipSeed(client, shape);
    const company = await seed.company("Acme Robotics");
    const environment = await seed.environment({
      companyId: company,
      name: "CreateOS sandboxes",
      config: { provider: "createos", apiUrl: API_URL, shape: "s-1vcpu-1gb", reuseLease: true },
    });
    if (options.plugin !== null) {
      await seed.plugin({
        packagePath: `/srv/plugins/${CANARY}`,
        manifest: { id: CREATEOS_PLUGIN_KEY, version: "x", description: CANARY },
        ...(options.plugin ?? { version: "0.2.0" }),
      });
    }
    const id = await seed.lease({
      companyId: company,
      environmentId: environment,
      status: "released",
      leasePolicy: "reuse_by_environment",
      providerLeaseId: "sbx-warm",
      releasedAt: "2026-11-30T10:00:00.000Z",
      metadata: {
        provider: "createos",
        apiUrl: API_URL,
        companyId: company,
        environmentId: environment,
        sandboxId: "sbx-warm",
        marker: randomUUID(),
        shape: "s-1vcpu-1gb",
        reuseLease: true,
        autoPauseAfterSeconds: 600,
        adapterType: "claude_local",
        baseEgressAllowlist: [],
        effectiveEgressAllowlist: [],
        pluginId: randomUUID(),
        pluginKey: CREATEOS_PLUGIN_KEY,
        sandboxProviderPlugin: true,
        ...options.leaseMetadata,
      },
    });
    await options.prepare?.(client, db);
    return id;
  });
  return { db, warm };
}

async function loaded(world: Instance, url = world.db.url) {
  const source = sourceFor(url);
  try {
    return { snapshot: await source.load(), reread: await source.readInstalledPlugin() };
  } finally {
    await source.close();
  }
}

describe("the installed CreateOS plugin, read from Paperclip's plugins table", () => {
  it.each<PaperclipSchemaShape>(["company-scoped", "instance-scoped"])(
    "a %s database: version 0.2.0 is the 0.2 generation, on the snapshot and when re-read",
    async (shape) => {
      const world = await instance({ shape, plugin: { version: "0.2.0" } });
      const { snapshot, reread } = await loaded(world);
      const expected = {
        version: "0.2.0",
        generation: "createos-0.2",
        readFrom: "Paperclip's plugins table",
      };
      expect(snapshot.installedPlugin).toEqual(expected);
      expect(reread).toEqual(expected);
      expect(snapshot.leases.map((lease) => lease.id)).toEqual([world.warm]);
      // manifest_json and package_path are never read.
      expect(JSON.stringify(snapshot)).not.toContain(CANARY);
    },
  );

  it("keeps a version no generation knows, with no generation", async () => {
    const { snapshot } = await loaded(await instance({ plugin: { version: "9.1.0" } }));
    expect(snapshot.installedPlugin).toEqual({
      version: "9.1.0",
      generation: null,
      readFrom: "Paperclip's plugins table",
    });
  });

  it("loads a Paperclip without a plugins table, and says the plugin cannot be told", async () => {
    const world = await instance({
      prepare: async (client) => {
        await client.query("DROP TABLE plugins");
      },
    });
    const { snapshot, reread } = await loaded(world);
    const expected = {
      version: null,
      generation: null,
      readFrom:
        "This Paperclip database has no plugins table, so which CreateOS plugin is installed cannot be told.",
    };
    expect(snapshot.installedPlugin).toEqual(expected);
    expect(reread).toEqual(expected);
    expect(snapshot.leases.map((lease) => lease.id)).toEqual([world.warm]);
    expect(snapshot.problems).toEqual([]);
  });

  it("says so when the table has no CreateOS plugin", async () => {
    const { snapshot } = await loaded(await instance({ plugin: null }));
    expect(snapshot.installedPlugin).toEqual({
      version: null,
      generation: null,
      readFrom:
        "Paperclip's plugins table lists no plugin, so which CreateOS plugin is installed cannot be told.",
    });
  });

  it("keeps the version of a disabled or errored plugin and says what its status means", async () => {
    const disabled = (await loaded(await instance({ plugin: { version: "0.1.0", status: "disabled" } })))
      .snapshot.installedPlugin;
    expect(disabled).toMatchObject({ version: "0.1.0", generation: "createos-0.1" });
    expect(disabled.readFrom).toMatch(/^Paperclip's plugins table; the plugin is disabled/);
    const errored = (await loaded(await instance({ plugin: { version: "0.3.1", status: "error" } }))).snapshot
      .installedPlugin;
    expect(errored).toMatchObject({ version: "0.3.1", generation: "createos-0.3" });
    expect(errored.readFrom).toContain("in error");
  });

  it("tells no plugin for an uninstalled one: a reinstall may bring any version", async () => {
    const { snapshot } = await loaded(
      await instance({ plugin: { version: "0.2.0", status: "uninstalled" } }),
    );
    expect(snapshot.installedPlugin).toMatchObject({ version: null, generation: null });
    expect(snapshot.installedPlugin.readFrom).toContain("(last 0.2.0) was uninstalled");
  });

  it("finds a renamed plugin by the key its CreateOS leases record", async () => {
    const world = await instance({
      plugin: { version: "0.2.3", pluginKey: "acme.createos-fork" },
      leaseMetadata: { pluginKey: "acme.createos-fork" },
      prepare: async (client) => {
        // Another plugin beside it, which no CreateOS lease names.
        await new PaperclipSeed(client, "instance-scoped").plugin({
          version: "1.0.0",
          pluginKey: "acme.slack",
        });
      },
    });
    const { snapshot } = await loaded(world);
    expect(snapshot.installedPlugin).toEqual({
      version: "0.2.3",
      generation: "createos-0.2",
      readFrom: `Paperclip's plugins table (the plugin its CreateOS leases record as "acme.createos-fork")`,
    });
  });

  it("loads with a role that may not read the table, and says why the plugin cannot be told", async () => {
    const password = `pw-${randomBytes(12).toString("hex")}`;
    const world = await instance({
      prepare: async (client, db) => {
        await client.query(`CREATE ROLE plugin_blind LOGIN PASSWORD '${password}'`);
        await client.query(`GRANT CONNECT ON DATABASE "${db.name}" TO plugin_blind`);
        await client.query("GRANT USAGE ON SCHEMA public TO plugin_blind");
        await client.query("GRANT SELECT ON environment_leases TO plugin_blind");
        await client.query("GRANT SELECT (id, name, driver, status, config) ON environments TO plugin_blind");
        await client.query("GRANT SELECT (id, name) ON companies TO plugin_blind");
        await client.query("GRANT SELECT (id, status) ON heartbeat_runs TO plugin_blind");
        // A grant on another column only: the table is visible, the three columns are not.
        await client.query("GRANT SELECT (id) ON plugins TO plugin_blind");
      },
    });
    const { snapshot } = await loaded(world, world.db.urlFor("plugin_blind", password));
    expect(snapshot.leases.map((lease) => lease.id)).toEqual([world.warm]);
    expect(snapshot.installedPlugin).toEqual({
      version: null,
      generation: null,
      readFrom:
        "The Paperclip database role may not read plugins.plugin_key, plugins.version, plugins.status (or the table lacks it), so which CreateOS plugin is installed cannot be told.",
    });
  });

  it("hands the rows back when the plugin's read fails, and says the read failed", async () => {
    const world = await instance({
      prepare: async (client) => {
        // A table whose every read fails, in the scan's transaction before the rows are read.
        await client.query("DROP TABLE plugins");
        await client.query(
          "CREATE VIEW plugins AS SELECT 'k'::text AS plugin_key, (1 / 0)::text AS version, 'ready'::text AS status",
        );
      },
    });
    const { snapshot, reread } = await loaded(world);
    expect(snapshot.leases.map((lease) => lease.id)).toEqual([world.warm]);
    const expected = {
      version: null,
      generation: null,
      readFrom:
        "Reading Paperclip's plugins table failed: the Paperclip database could not be read (22012), so which CreateOS plugin is installed cannot be told.",
    };
    expect(snapshot.installedPlugin).toEqual(expected);
    expect(reread).toEqual(expected);
  });

  it("judges a released reusable lease as the installed plugin releases it: 0.1 pauses, 0.2 keeps warm", async () => {
    const listing: SandboxListing = {
      origin: API_URL,
      credential: "default",
      outcome: {
        ok: true,
        sandboxes: [{ id: "sbx-warm", status: "running" }],
        observedAt: "2026-12-01T10:00:00.000Z",
      },
    };
    const judged = async (version: string) => {
      const world = await instance({ plugin: { version } });
      const { snapshot } = await loaded(world);
      const inventory = reconcile({
        snapshots: [snapshot],
        listings: [listing],
        now: new Date("2026-12-01T10:00:00.000Z"),
        requests: 1,
      });
      const lease = inventory.leases.find((candidate) => candidate.lease.id === world.warm)!;
      expect(lease.provider.code).toBe("running");
      return lease;
    };
    const under01 = await judged("0.1.0");
    const under02 = await judged("0.2.0");
    expect(under01.installedPlugin?.generation).toBe("createos-0.1");
    expect(under02.installedPlugin?.generation).toBe("createos-0.2");
    const release = (lease: typeof under01) =>
      predictRelease(lease.installedPlugin, lease.lease.providerLeaseId, lease.lease.metadata);
    expect(release(under01)).toMatchObject({ outcome: "pause", by: "createos-0.1", told: true });
    expect(release(under02)).toMatchObject({ outcome: "keep-warm", by: "createos-0.2", told: true });
  });
});
