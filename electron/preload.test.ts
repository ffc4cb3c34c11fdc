import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { EVENT_CHANNELS, INVOKE_CHANNELS, IPC_PREFIX } from "../shared/contract/channels.js";

vi.mock("electron", () => import("./test-support/fake-electron.js"));

const fake = await import("./test-support/fake-electron.js");

interface Bridge {
  channels: readonly string[];
  events: readonly string[];
  invoke(channel: unknown, request?: unknown): Promise<unknown>;
  on(channel: unknown, listener: unknown): () => void;
}

let bridge: Bridge;
beforeAll(async () => {
  fake.resetFakeElectron();
  await import("./preload.js");
  bridge = fake.contextBridge.exposed.get("leasekeeper") as Bridge;
});

describe("preload", () => {
  it("exposes one frozen object, window.leasekeeper, and nothing else (#20: no Electron API)", () => {
    expect([...fake.contextBridge.exposed.keys()]).toEqual(["leasekeeper"]);
    expect(Object.isFrozen(bridge)).toBe(true);
    expect(Object.isFrozen(bridge.channels)).toBe(true);
    expect(Object.keys(bridge).sort()).toEqual(["channels", "events", "invoke", "on"]);
  });

  it("offers exactly the contract's channels and events", () => {
    expect([...bridge.channels]).toEqual([...INVOKE_CHANNELS]);
    expect([...bridge.events]).toEqual([...EVENT_CHANNELS]);
  });

  it("maps each contract channel 1:1 to one ipcRenderer.invoke on its prefixed name", async () => {
    fake.ipcRenderer.invocations = [];
    for (const channel of INVOKE_CHANNELS) await bridge.invoke(channel, { probe: channel });
    expect(fake.ipcRenderer.invocations).toEqual(
      INVOKE_CHANNELS.map((channel) => ({ channel: `${IPC_PREFIX}${channel}`, payload: { probe: channel } })),
    );
  });

  it.each([
    "shell:openExternal",
    "leasekeeper:app:info",
    "__proto__",
    "constructor",
    "",
    42,
    null,
    { toString: () => "app:info" },
  ])("refuses %s without calling ipcRenderer", async (channel) => {
    fake.ipcRenderer.invocations = [];
    await expect(bridge.invoke(channel, {})).resolves.toEqual({
      ok: false,
      error: { code: "invalid-request", message: "Unknown channel." },
    });
    expect(fake.ipcRenderer.invocations).toEqual([]);
  });

  it("subscribes to contract events, hands the page only the payload, and unsubscribes", () => {
    const seen: unknown[] = [];
    const off = bridge.on("inventory:changed", (...args: unknown[]) => seen.push(args));
    fake.ipcRenderer.emitter.emit(
      `${IPC_PREFIX}inventory:changed`,
      { sender: "secret-ipc-event" },
      { generatedAt: "t" },
    );
    expect(seen).toEqual([[{ generatedAt: "t" }]]);
    off();
    fake.ipcRenderer.emitter.emit(`${IPC_PREFIX}inventory:changed`, {}, { generatedAt: "t2" });
    expect(seen).toHaveLength(1);
  });

  it("refuses to listen to anything that is not a contract event", () => {
    for (const channel of ["jobs:events", "leasekeeper:jobs:event", "__proto__", 1]) {
      expect(() => bridge.on(channel, () => undefined)).toThrow(TypeError);
    }
    expect(() => bridge.on("jobs:event", "not a function")).toThrow(TypeError);
    const total = [...fake.ipcRenderer.emitter.listeners.values()].reduce(
      (sum, list) => sum + list.length,
      0,
    );
    expect(total).toBe(0);
  });

  it("stays small and imports only electron and the channel names (no zod, no core)", () => {
    const source = readFileSync(new URL("./preload.ts", import.meta.url), "utf8");
    const imports = [...source.matchAll(/from "([^"]+)"/g)].map((match) => match[1]);
    expect(imports).toEqual(["electron", "../shared/contract/channels.js"]);
    expect(source.split("\n").length).toBeLessThan(60);
  });
});
