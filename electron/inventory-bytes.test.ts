import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TOKEN_HEADER } from "../shared/contract/bridge.js";
import { type InventoryView, IPC_PREFIX } from "../shared/contract/index.js";
import { generateDemoWorld, type Simulator, startSimulator, writeDemoWorld } from "../simulator/index.js";
import { type HttpHost, startHttpHost } from "./core/http-host/host.js";

vi.mock("electron", () => import("./test-support/fake-electron.js"));
process.env.LEASEKEEPER_MAIN_AUTOSTART = "0";

const fake = await import("./test-support/fake-electron.js");
const { main } = await import("./main.js");

// Main holds the inventory view as the JSON bytes hosts answer with (decision 294). Through both hosts
// — the browser host's HTTP answer, and Electron's IPC decoded by the preload — the page must get the
// object an in-process caller of the handler table gets, for a world of a thousand rows whose names and
// ids are not ASCII; and a key set after the scan, written in a row the view shows, must not get out.

const LATE_KEY = "lk_late_key_9c41e2";
const NAMES = ["Zürich — 東京 ✓", "Ελληνικά 🚀", 'naïve "quoted" \\ back'];

let simulator: Simulator;
let dir: string;
let host: HttpHost;
let handle: NonNullable<Awaited<ReturnType<typeof main>>>;
let bridge: { invoke(channel: unknown, request?: unknown): Promise<unknown> };
let hostileLeaseId = "";

beforeAll(async () => {
  const draft = generateDemoWorld({ size: 1000, seed: "view-bytes" });
  simulator = await startSimulator({ fleet: draft.fleet, aliasPorts: [0], transitionMs: 20 });
  const world = generateDemoWorld({
    size: 1000,
    seed: "view-bytes",
    apiUrl: simulator.url,
    legacyApiUrl: simulator.aliasUrls[0]!,
  });
  world.ledger.environments.forEach((environment, at) => {
    environment.name = `${NAMES[at % NAMES.length]} ${at}`;
  });
  for (const company of world.ledger.companies ?? []) company.name = `Société ${company.name} — 株式会社`;
  // Ids the table shows as they are: a lease id that is not ASCII, and one row carrying the key to come.
  world.ledger.leases.forEach((lease, at) => {
    if (at % 7 === 0) lease.id = `${lease.id}-ñ-😀`;
  });
  const hostile = world.ledger.leases.find((lease) => lease.status === "active")!;
  hostile.id = `lease ${LATE_KEY}`;
  hostileLeaseId = hostile.id;
  dir = mkdtempSync(path.join(tmpdir(), "lk-view-bytes-"));
  await writeDemoWorld(dir, world);

  fake.resetFakeElectron();
  fake.app.userData = path.join(dir, "user-data");
  const started = await main({
    ...world.keys,
    LEASEKEEPER_CONFIG: path.join(dir, "leasekeeper.config.json"),
  } as NodeJS.ProcessEnv);
  if (started === null) throw new Error(`main did not start: ${JSON.stringify(fake.dialog.errors)}`);
  handle = started;
  const sender = { sender: { id: handle.window.webContents.id } };
  const frame = { senderFrame: { url: "leasekeeper://app/index.html", parent: null } };
  // The preload over main's own handlers, each answer cloned as Electron's IPC clones it.
  fake.ipcRenderer.answer = async (channel, payload) => {
    const handler = fake.ipcMain.handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return structuredClone(await handler({ ...sender, ...frame }, payload));
  };
  await import("./preload.js");
  bridge = fake.contextBridge.exposed.get("leasekeeper") as typeof bridge;
  host = await startHttpHost({
    handlers: handle.core.handlers,
    events: handle.core.events,
    log: handle.core.log,
    rendererDir: null,
  });
}, 120_000);

afterAll(async () => {
  await host?.close();
  await handle?.core.close();
  await simulator?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function overHttp(request: unknown): Promise<{ text: string; answer: unknown }> {
  const response = await fetch(`${host.origin}/api/inventory:get`, {
    method: "POST",
    headers: { "Content-Type": "application/json", [TOKEN_HEADER]: host.token },
    body: JSON.stringify(request),
  });
  const text = await response.text();
  return { text, answer: JSON.parse(text) };
}

const inProcess = (request: unknown) => handle.core.handlers["inventory:get"](request, { host: "test" });

describe("the inventory view, held by main as bytes", () => {
  it("reaches the page through either host as the object the handler table gives", async () => {
    const scanned = (await inProcess({ refresh: true })) as { ok: true; data: InventoryView };
    expect(scanned.ok).toBe(true);
    const view = scanned.data;
    expect(view.leases.leaseId.length).toBeGreaterThan(500);
    expect(view.generation).toBeGreaterThan(0);
    expect(view.environments.map((environment) => environment.name)).toContain(`${NAMES[1]} 1`);
    expect(view.companyNames.some((name) => name?.endsWith("株式会社"))).toBe(true);
    expect(view.leases.leaseId.filter((id) => id.endsWith("-ñ-😀")).length).toBeGreaterThan(50);

    expect((await overHttp({})).answer).toEqual(scanned);
    expect(await bridge.invoke("inventory:get", {})).toEqual(scanned);
    // Main's IPC answer is the bytes, not the parsed view: the preload is what decodes them.
    const ipc = fake.ipcMain.handlers.get(`${IPC_PREFIX}inventory:get`)!;
    const sent = (await ipc(
      {
        sender: { id: handle.window.webContents.id },
        senderFrame: { url: "leasekeeper://app/index.html", parent: null },
      },
      {},
    )) as { ok: true; data: unknown };
    expect(sent.data).toBeInstanceOf(Uint8Array);

    // An environment's view, read from the worker, goes the same way.
    const environmentId = view.environments.find((environment) => environment.environmentId)!.environmentId;
    const ofOne = await inProcess({ environmentId });
    expect(ofOne.ok).toBe(true);
    expect((await overHttp({ environmentId })).answer).toEqual(ofOne);
    expect(await bridge.invoke("inventory:get", { environmentId })).toEqual(ofOne);
  }, 120_000);

  it("takes out a key set after the scan from the view the worker redacted before it", async () => {
    const before = await overHttp({});
    expect(before.text).toContain(LATE_KEY);
    const credential = handle.core.settings.config.credentials[0]!;
    const set = await handle.core.handlers["credentials:set"](
      { name: credential.name, origin: credential.origin, apiKey: LATE_KEY, saveUnverified: true },
      { host: "test" },
    );
    expect(set.ok, JSON.stringify(set)).toBe(true);

    const after = await overHttp({});
    expect(after.text).not.toContain(LATE_KEY);
    expect(after.text).toContain(`lease [redacted]`);
    const viaBridge = JSON.stringify(await bridge.invoke("inventory:get", {}));
    expect(viaBridge).not.toContain(LATE_KEY);
    expect(viaBridge).toContain(`lease [redacted]`);
    const direct = JSON.stringify(await inProcess({}));
    expect(direct).not.toContain(LATE_KEY);
    expect(JSON.parse(viaBridge)).toEqual(after.answer);
    expect(hostileLeaseId).toContain(LATE_KEY);
  }, 60_000);
});

describe("the preload, on a channel main answers with bytes", () => {
  it("answers anything but decodable bytes as an unreadable answer, and passes failures on", async () => {
    const saved = fake.ipcRenderer.answer;
    const unreadable = {
      ok: false,
      error: { code: "internal", message: "Leasekeeper's answer could not be read; try again." },
    };
    try {
      for (const answer of [
        { ok: true, data: { leases: {} } },
        { ok: true, data: "{}" },
        { ok: true, data: new TextEncoder().encode("{not json") },
        { ok: true },
        null,
        "ok",
      ]) {
        fake.ipcRenderer.answer = async () => answer;
        expect(await bridge.invoke("inventory:get", {})).toEqual(unreadable);
      }
      const failed = { ok: false, error: { code: "unavailable", message: "Not now." } };
      fake.ipcRenderer.answer = async () => failed;
      expect(await bridge.invoke("inventory:get", {})).toEqual(failed);
      // Every other channel's answer is the page's as main gave it.
      fake.ipcRenderer.answer = async () => ({ ok: true, data: { mode: "electron" } });
      expect(await bridge.invoke("app:info", {})).toEqual({ ok: true, data: { mode: "electron" } });
    } finally {
      fake.ipcRenderer.answer = saved;
    }
  });
});
