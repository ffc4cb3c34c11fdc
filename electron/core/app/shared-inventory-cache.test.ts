import { readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import type { InventoryView } from "../../../shared/contract/index.js";
import type { Plan } from "../../../shared/domain/actions.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { command as scanCommand } from "../cli/commands/scan.js";
import type { Core } from "../compose/index.js";
import { memoryLogger } from "./log.js";
import { type Machine, queryStore, STORE_URL_ENV, TeamMachines } from "./testing/team-machines.js";

// Machines (data directories) sharing one PostgreSQL store keep the whole inventory there: another
// machine, whose own source cannot be read, answers a lease's detail and makes a plan from it before any
// scan of its own; the later scan wins, this machine's or the team's; a scan from a terminal is kept
// for the others too; nothing secret is in the stored rows; without a store configured, nothing connects.

const METADATA_CANARY = "lk-metadata-canary-93d1";
const postgres = postgresForSuite();
let demo: Demo;
let team: TeamMachines;
const context = { host: "test" as const };

beforeAll(async () => {
  demo = await startDemo({ size: 60, seed: "shared-cache", leases: "ledger" });
  team = new TeamMachines(demo);
}, 120_000);

afterAll(async () => {
  await demo?.stop();
  team?.removeAll();
}, 60_000);

const machine = (options: { store: boolean; sourceGone?: boolean; at?: Machine }) => team.machine(options);
const envFor = (url: string) => team.envFor(url);
const open = (at: Machine, url: string, log = memoryLogger()): Promise<Core> => team.open(at, url, { log });

/** Opens a machine's app, scans once, waits for its saves, and closes it: what it scanned. */
async function scanOn(at: Machine, url: string): Promise<InventoryView> {
  const app = await open(at, url);
  try {
    const answer = await app.handlers["inventory:get"]({ refresh: true }, context);
    if (!answer.ok) throw new Error(answer.error.message);
    await app.inventory.saved();
    return answer.data;
  } finally {
    await app.close();
  }
}

/** The kept inventory's JSON, its chunks inflated and joined. */
async function keptJson(url: string): Promise<string> {
  const rows = await queryStore<{ data: Buffer }>(
    url,
    `SELECT c.data FROM leasekeeper.inventory_cache_chunks AS c
     JOIN leasekeeper.inventory_caches AS h ON h.source_set = c.source_set AND h.generation = c.generation
     ORDER BY c.seq`,
  );
  return rows.map((row) => gunzipSync(row.data).toString("utf8")).join("");
}

/**
 * A configured key where no key belongs (an environment's name), and a value under a secret-named
 * metadata key beside an ordinary one: neither secret may reach the team's store. Returns the key and
 * the lease that carries the metadata.
 */
function plantSecrets(): { key: string; planted: { id: string } } {
  const key = Object.values(demo.keys)[0]!;
  const ledgerPath = path.join(demo.dir, "ledger.json");
  const ledger = JSON.parse(readFileSync(ledgerPath, "utf8")) as {
    environments: { name: string }[];
    leases: { id: string; metadata?: Record<string, unknown> | null }[];
  };
  ledger.environments[0]!.name = `prod ${key}`;
  const planted = ledger.leases[0]!;
  planted.metadata = { ...(planted.metadata ?? {}), sessionToken: METADATA_CANARY, ticket: "OPS-17" };
  writeFileSync(ledgerPath, JSON.stringify(ledger));
  return { key, planted };
}

async function runScan(at: Machine, env: NodeJS.ProcessEnv) {
  const out = { stdout: "", stderr: "" };
  const code = await scanCommand.run(["--config", at.configPath, "--json"], {
    stdout: { write: (text: string) => (out.stdout += text) },
    stderr: { write: (text: string) => (out.stderr += text) },
    env,
    cwd: process.cwd(),
  });
  return { code, ...out };
}

describe("the whole inventory in the store a team shares", () => {
  it("lets a machine that cannot read its source answer a lease's detail and plan before any scan of its own", async () => {
    const { url } = await postgres().createDatabase("shared_cache");
    const { key, planted } = plantSecrets();
    const scanned = await scanOn(machine({ store: true }), url);
    expect(scanned.leases.leaseId).toContain(planted.id);

    const heads = await queryStore<{ generated_at: string; lease_count: number }>(
      url,
      "SELECT generated_at, lease_count FROM leasekeeper.inventory_caches",
    );
    expect(heads).toEqual([
      // The view counts history beside its rows; the store keeps every lease.
      {
        generated_at: scanned.generatedAt,
        lease_count: scanned.leases.leaseId.length + scanned.history.count,
      },
    ]);
    const kept = await keptJson(url);
    expect(kept).toContain("prod ");
    expect(kept).toContain("OPS-17");
    expect(kept).not.toContain(key);
    expect(kept).not.toContain(METADATA_CANARY);
    // Nor in any form the chunks could be read in without inflating them.
    const raw = await queryStore<{ n: string }>(
      url,
      `SELECT COUNT(*) AS n FROM leasekeeper.inventory_cache_chunks
       WHERE position(convert_to('${key}', 'UTF8') IN data) > 0`,
    );
    expect(Number(raw[0]!.n)).toBe(0);

    const log = memoryLogger();
    const second = await open(machine({ store: true, sourceGone: true }), url, log);
    try {
      const detail = await second.handlers["leases:detail"]({ leaseId: planted.id }, context);
      if (!detail.ok) throw new Error(detail.error.message);
      expect(detail.data.leaseId).toBe(planted.id);

      const planned = await second.handlers["actions:plan"](
        { action: "destroy", selection: { kind: "leases", leaseIds: [planted.id] } },
        context,
      );
      if (!planned.ok) throw new Error(planned.error.message);
      const plan = planned.data as Plan;
      expect(plan.items.map((item) => item.leaseId)).toEqual([planted.id]);
      // Made from the first machine's scan: this one has none (its source cannot be read).
      expect(second.inventory.summary?.generatedAt).toBe(scanned.generatedAt);
      expect(second.inventory.lastRefreshAt).toBeNull();
    } finally {
      await second.close();
    }
    expect(log.lines.join("\n")).not.toContain("team's inventory could not be loaded");
  }, 90_000);

  it("loads whichever scan is later: this machine's own, or the team's", async () => {
    const { url } = await postgres().createDatabase("shared_cache_newer");
    const team = machine({ store: true });
    const first = await scanOn(team, url);

    // This machine scans later without the store, then starts with it and no readable source.
    const own = machine({ store: false });
    const ownScan = await scanOn(own, url);
    expect(ownScan.generatedAt > first.generatedAt).toBe(true);
    const withStore = machine({ store: true, sourceGone: true, at: own });
    let app = await open(withStore, url);
    try {
      expect((await app.inventory.full()).generatedAt).toBe(ownScan.generatedAt);
    } finally {
      await app.close();
    }

    // The team scans again, later than this machine: its inventory is the one loaded now.
    const later = await scanOn(team, url);
    expect(later.generatedAt > ownScan.generatedAt).toBe(true);
    app = await open(withStore, url);
    try {
      const loaded = await app.inventory.full();
      expect(loaded.generatedAt).toBe(later.generatedAt);
      // The view carries every lease but history, in the inventory's order.
      expect(
        loaded.leases.filter((lease) => lease.verdict.headline !== "closed").map((lease) => lease.lease.id),
      ).toEqual(later.leases.leaseId);
    } finally {
      await app.close();
    }
  }, 120_000);

  it("loads this machine's own when the team's store refuses it, and says so naming no part of its URL", async () => {
    const database = await postgres().createDatabase("shared_cache_refused");
    const own = machine({ store: false });
    const ownScan = await scanOn(own, database.url);
    const password = "not-the-password-41b7";
    const refusedUrl = database.urlFor("postgres", password);
    const log = memoryLogger();
    const app = await open(machine({ store: true, sourceGone: true, at: own }), refusedUrl, log);
    try {
      expect((await app.inventory.full()).generatedAt).toBe(ownScan.generatedAt);
    } finally {
      await app.close();
    }
    const logged = log.lines.join("\n");
    expect(logged).toContain("the team's inventory could not be loaded; this machine's own is used");
    expect(logged).toContain(`The shared store in ${STORE_URL_ENV} refused the login (SQLSTATE 28P01)`);
    expect(logged).not.toContain(password);
    expect(logged).not.toContain(refusedUrl);
  }, 90_000);

  it("keeps a scan from a terminal for the others, view and inventory", async () => {
    const { url } = await postgres().createDatabase("shared_cache_cli");
    const { key } = plantSecrets();
    const scanned = await runScan(machine({ store: true }), envFor(url));
    expect(scanned.stderr).toBe("");
    expect(scanned.code).toBe(0);
    const report = JSON.parse(scanned.stdout) as { generatedAt: string; leases: { leaseId: string }[] };

    const views = await queryStore<{ generated_at: string }>(
      url,
      "SELECT generated_at FROM leasekeeper.inventory_views",
    );
    const heads = await queryStore<{ generated_at: string }>(
      url,
      "SELECT generated_at FROM leasekeeper.inventory_caches",
    );
    expect(views).toEqual([{ generated_at: report.generatedAt }]);
    expect(heads).toEqual([{ generated_at: report.generatedAt }]);
    const view = await queryStore<{ view: string }>(
      url,
      "SELECT convert_from(view, 'UTF8') AS view FROM leasekeeper.inventory_views",
    );
    const kept = await keptJson(url);
    expect(kept).toContain("OPS-17");
    for (const stored of [view[0]!.view, kept]) {
      expect(stored).toContain("prod ");
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(METADATA_CANARY);
    }

    const fresh = await open(machine({ store: true, sourceGone: true }), url);
    try {
      const shown = await fresh.handlers["inventory:get"]({}, context);
      if (!shown.ok) throw new Error(shown.error.message);
      expect(shown.data.generatedAt).toBe(report.generatedAt);
      const full = await fresh.inventory.full();
      expect(full.generatedAt).toBe(report.generatedAt);
      expect(full.leases.length).toBe(shown.data.leases.leaseId.length + shown.data.history.count);
      // Every row the terminal reported, each kept once (its rows were sent a page at a time).
      const keptIds = full.leases.map((classified) => classified.lease.id).sort();
      expect(keptIds).toEqual(report.leases.map((lease) => lease.leaseId).sort());
    } finally {
      await fresh.close();
    }
  }, 90_000);

  it("is not connected to by a terminal scan without a postgres store", async () => {
    // The variable is set, to a port that counts who knocks.
    let connections = 0;
    const listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const { port } = listener.address() as AddressInfo;
    try {
      const scanned = await runScan(
        machine({ store: false }),
        envFor(`postgres://lk:pw@127.0.0.1:${port}/team`),
      );
      expect(scanned.code).toBe(0);
      expect(scanned.stderr).toBe("");
      expect(connections).toBe(0);
      // The same variable with a store configured is tried (and refused, naming no part of the URL).
      const configured = await runScan(
        machine({ store: true }),
        envFor(`postgres://lk:pw@127.0.0.1:${port}/team`),
      );
      expect(configured.code).toBe(0);
      expect(configured.stderr).toBe(
        `leasekeeper scan: the result was not kept in the shared store (The shared store in ${STORE_URL_ENV} could not be reached).\n`,
      );
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
    expect(connections).toBeGreaterThan(0);
  }, 60_000);

  it("says so when the terminal's store variable is unset, and still prints the scan", async () => {
    const env = envFor("");
    delete env[STORE_URL_ENV];
    const scanned = await runScan(machine({ store: true }), env);
    expect(scanned.code).toBe(0);
    expect(JSON.parse(scanned.stdout)).toHaveProperty("generatedAt");
    expect(scanned.stderr).toBe(
      `leasekeeper scan: the result was not kept in the shared store (the shared store variable ${STORE_URL_ENV} is not set).\n`,
    );
  }, 60_000);
});
