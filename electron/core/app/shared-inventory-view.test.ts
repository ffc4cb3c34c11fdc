import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import type { InventoryView } from "../../../shared/contract/index.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import type { Core } from "../compose/index.js";
import { memoryLogger } from "./log.js";
import { expectShownAsScanned, inventoryGet } from "./testing/shown-view.js";
import { type Machine, queryStore, STORE_URL_ENV, TeamMachines } from "./testing/team-machines.js";

// Two machines (two data directories) sharing one PostgreSQL store: the second shows the first's last
// inventory at start, before any scan of its own, and the store holds it with the keys taken out.

const postgres = postgresForSuite();
let demo: Demo;
let team: TeamMachines;

beforeAll(async () => {
  demo = await startDemo({ size: 60, seed: "shared-view", leases: "ledger" });
  team = new TeamMachines(demo);
}, 120_000);

afterAll(async () => {
  await demo?.stop();
  team?.removeAll();
}, 60_000);

const machine = (options: { store: boolean; sourceGone?: boolean }) => team.machine(options);
const open = (at: Machine, url: string, log = memoryLogger()): Promise<Core> =>
  team.open(at, url, { log, actions: false });

describe("the last inventory in the store a team shares", () => {
  it("is shown by a second machine at start, its keys taken out in the stored rows", async () => {
    const { url } = await postgres().createDatabase("shared_view");
    // A configured key where no key belongs: in an environment's name, which the view shows.
    const key = Object.values(demo.keys)[0]!;
    const ledgerPath = path.join(demo.dir, "ledger.json");
    const ledger = JSON.parse(readFileSync(ledgerPath, "utf8")) as { environments: { name: string }[] };
    ledger.environments[0]!.name = `prod ${key}`;
    writeFileSync(ledgerPath, JSON.stringify(ledger));

    const first = await open(machine({ store: true }), url);
    let scanned: InventoryView;
    try {
      scanned = await inventoryGet(first);
      await first.inventory.saved();
    } finally {
      await first.close();
    }
    expect(scanned.leases.leaseId.length).toBeGreaterThan(0);

    const rows = await queryStore<{ generated_at: string; view: string }>(
      url,
      "SELECT generated_at, convert_from(view, 'UTF8') AS view FROM leasekeeper.inventory_views",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.generated_at).toBe(scanned.generatedAt);
    expect(rows[0]!.view).toContain("prod ");
    expect(rows[0]!.view).not.toContain(key);

    const second = await open(machine({ store: true, sourceGone: true }), url);
    try {
      await expectShownAsScanned(second, scanned);
    } finally {
      await second.close();
    }
  }, 60_000);

  it("is not written, nor the store connected to, when no postgres store is configured", async () => {
    const { url } = await postgres().createDatabase("no_store");
    const app = await open(machine({ store: false }), url);
    try {
      expect((await inventoryGet(app)).leases.leaseId.length).toBeGreaterThan(0);
      await app.inventory.saved();
    } finally {
      await app.close();
    }
    // Even with the variable set, nothing prepared the schema: the config never asked for the store.
    const schemas = await queryStore<{ n: string }>(
      url,
      "SELECT COUNT(*) AS n FROM information_schema.schemata WHERE schema_name = 'leasekeeper'",
    );
    expect(Number(schemas[0]!.n)).toBe(0);
  }, 60_000);

  it("still shows this machine's scan when the store refuses it, and says so naming no part of its URL", async () => {
    const database = await postgres().createDatabase("refused");
    const password = "not-the-password-7c1e";
    const url = database.urlFor("postgres", password);
    const log = memoryLogger();
    const app = await open(machine({ store: true }), url, log);
    try {
      expect((await inventoryGet(app)).leases.leaseId.length).toBeGreaterThan(0);
      await app.inventory.saved();
    } finally {
      await app.close();
    }
    const logged = log.lines.join("\n");
    // Both the read at start and the worker's write were refused, and said so.
    expect(logged).toContain("the shared store's last view could not be read");
    expect(logged).toContain(`The shared store in ${STORE_URL_ENV} refused the login (SQLSTATE 28P01)`);
    expect(logged).not.toContain(password);
    expect(logged).not.toContain(url);
  }, 60_000);
});
