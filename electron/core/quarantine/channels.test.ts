import { afterEach, describe, expect, it } from "vitest";
import { type ChannelResponse, QUARANTINE_LIST_LIMIT, type Result } from "../../../shared/contract/index.js";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import { buildWorld, eventually, type World } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { type Core, openCore } from "../compose/index.js";
import { loadConfig } from "../config/load.js";
import { openDatabase, SqliteQuarantineStore } from "../store/index.js";
import { quarantineRecord } from "../store/testing/quarantine-record.js";

// The quarantine channels through the real handler table of a real core (what IPC and the browser host
// call), against the simulator.

let world: World | null = null;
let app: Core | null = null;
afterEach(async () => {
  await app?.close();
  await world?.close();
  app = null;
  world = null;
});

const context = { host: "test" } as const;

function recorded(quarantineId: string, state: "waiting" | "cancelled", createdAt: string): Quarantine {
  const ended = state !== "waiting";
  return quarantineRecord({
    quarantineId,
    sandboxId: `sb-${quarantineId}`,
    origin: world!.sim.url,
    hours: 24 * 30,
    createdAt,
    pausedAt: createdAt,
    dueAt: "2027-12-01T00:00:00.000Z",
    state,
    endedAt: ended ? createdAt : null,
    reason: ended ? "operator" : null,
  });
}

async function call<
  C extends "quarantine:create" | "quarantine:list" | "quarantine:cancel" | "quarantine:resume",
>(channel: C, request: unknown): Promise<Result<ChannelResponse<C>>> {
  return (await app!.handlers[channel](request, context)) as Result<ChannelResponse<C>>;
}

describe("the quarantine channels", () => {
  it("quarantine, list, cancel and resume over the handler table, refusing malformed requests", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-chan" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-chan", environmentId: "env-1", sandboxId: "sb-chan" }],
    });
    app = await openCore({
      configPath: world.configFile,
      mode: "browser",
      version: "test",
      env: world.env,
      log: memoryLogger(),
      autoRefresh: false,
    });
    for (const bad of [
      { leases: [{ leaseId: "lease-chan" }] },
      { leases: [], hours: 1 },
      { leases: [{ leaseId: "lease-chan" }], hours: -1 },
    ]) {
      expect(await call("quarantine:create", bad)).toMatchObject({
        ok: false,
        error: { code: "invalid-request" },
      });
    }

    const created = await call("quarantine:create", { leases: [{ leaseId: "lease-chan" }], hours: 12 });
    if (!created.ok) throw new Error(created.error.message);
    const [outcome] = created.data.outcomes;
    if (!outcome?.ok) throw new Error("not quarantined");
    const listed = await call("quarantine:list", { open: true });
    expect(listed.ok && listed.data.quarantines.map((quarantine) => quarantine.sandboxId)).toEqual([
      "sb-chan",
    ]);

    await eventually(async () => (await world!.statusOf("sb-chan")) === "paused", "the sandbox paused");
    const resumed = await call("quarantine:resume", { quarantineId: outcome.quarantine.quarantineId });
    expect(resumed.ok && resumed.data.state).toBe("cancelled");
    await eventually(
      async () => (await world!.statusOf("sb-chan")) === "running",
      "the sandbox running again",
    );
    const again = await call("quarantine:cancel", { quarantineId: outcome.quarantine.quarantineId });
    expect(again).toMatchObject({ ok: false, error: { code: "conflict" } });
    const missing = await call("quarantine:cancel", { quarantineId: "no-such-quarantine" });
    expect(missing).toMatchObject({ ok: false, error: { code: "not-found" } });
  });

  it("a list cut at its limit says so, and an older open quarantine is still in the open list", async () => {
    world = await buildWorld({ sandboxes: [], environments: [], leases: [] });
    const config = await loadConfig(world.configFile);
    // One open quarantine, then more ended ones than a list answer holds, all newer (a janitor rule's bulk).
    const database = openDatabase(config.dataDir);
    const store = new SqliteQuarantineStore(database);
    await store.insert(recorded("q-0000-open", "waiting", "2026-11-01T00:00:00.000Z"));
    for (let index = 1; index <= QUARANTINE_LIST_LIMIT; index += 1) {
      const at = new Date(Date.parse("2026-11-02T00:00:00.000Z") + index * 1_000).toISOString();
      await store.insert(recorded(`q-${String(index).padStart(4, "0")}-ended`, "cancelled", at));
    }
    database.close();
    app = await openCore({
      configPath: world.configFile,
      mode: "browser",
      version: "test",
      env: world.env,
      log: memoryLogger(),
      autoRefresh: false,
    });

    const every = await call("quarantine:list", {});
    if (!every.ok) throw new Error(every.error.message);
    expect(every.data.quarantines).toHaveLength(QUARANTINE_LIST_LIMIT);
    expect(every.data.quarantines.some((quarantine) => quarantine.state === "waiting")).toBe(false);
    expect(every.data.cut).toBe(true);

    const open = await call("quarantine:list", { open: true });
    if (!open.ok) throw new Error(open.error.message);
    expect(open.data.quarantines.map((quarantine) => quarantine.quarantineId)).toEqual(["q-0000-open"]);
    expect(open.data.cut).toBe(false);
  });

  it("answers unavailable where there is no engine to destroy through", async () => {
    world = await buildWorld({ sandboxes: [], environments: [], leases: [] });
    app = await openCore({
      configPath: world.configFile,
      mode: "browser",
      version: "test",
      env: world.env,
      log: memoryLogger(),
      autoRefresh: false,
      actions: false,
    });
    expect(await call("quarantine:list", {})).toMatchObject({ ok: false, error: { code: "unavailable" } });
  });
});
