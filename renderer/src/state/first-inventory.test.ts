import { beforeEach, describe, expect, it, vi } from "vitest";
import type { EventChannel } from "../../../shared/contract/channels";
import type { Result } from "../../../shared/contract/result";
import type { Transport } from "../api";

/** The main side as the API module sees it, in memory: what was asked, and events to send. */
function mainSide(answer: Result<unknown>) {
  const asked: { channel: string; request: unknown }[] = [];
  const listeners = new Map<EventChannel, Set<(payload: unknown) => void>>();
  const transport: Transport = {
    mode: "browser",
    invoke: async (channel, request) => {
      asked.push({ channel, request });
      return answer;
    },
    on(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
  return {
    transport,
    asked,
    announce: (generatedAt: string) => {
      for (const listener of listeners.get("inventory:changed") ?? []) listener({ generatedAt });
    },
    listening: () => listeners.get("inventory:changed")?.size ?? 0,
  };
}

const VIEW = { generatedAt: "2026-12-08T00:00:00.000Z" };

/** The API module and the first request as a fresh page has them (both hold module state). */
async function freshPage(answer: Result<unknown>) {
  vi.resetModules();
  const { setTransportForTests } = await import("../api");
  const first = await import("./first-inventory");
  const main = mainSide(answer);
  setTransportForTests(main.transport);
  return { ...first, main };
}

describe("the inventory asked for by the page's first script", () => {
  beforeEach(() => vi.resetModules());

  it("is one inventory:get, whose answer the app takes once; later fetches ask main themselves", async () => {
    const page = await freshPage({ ok: true, data: VIEW });
    page.askForFirstInventory();
    page.askForFirstInventory();
    expect(page.main.asked).toEqual([{ channel: "inventory:get", request: {} }]);

    const taken = page.takeFirstInventory();
    expect(taken).not.toBeNull();
    await expect(taken).resolves.toEqual(VIEW);
    expect(page.takeFirstInventory()).toBeNull();
    expect(page.main.asked).toHaveLength(1);
  });

  it("hands a failed answer to the app as the error the API gives, for the page to say", async () => {
    const page = await freshPage({
      ok: false,
      error: { code: "unavailable", message: "The inventory could not be read." },
    });
    page.askForFirstInventory();
    await expect(page.takeFirstInventory()).rejects.toMatchObject({
      code: "unavailable",
      message: "The inventory could not be read.",
    });
  });

  it("keeps a change main announced before the app listened, once, and stops listening", async () => {
    const page = await freshPage({ ok: true, data: VIEW });
    page.askForFirstInventory();
    expect(page.main.listening()).toBe(1);
    page.main.announce("2026-12-08T00:00:01.000Z");
    page.main.announce("2026-12-08T00:00:02.000Z");

    expect(page.takeInventoryAnnouncedEarly()).toBe("2026-12-08T00:00:02.000Z");
    expect(page.main.listening()).toBe(0);
    page.main.announce("2026-12-08T00:00:03.000Z");
    expect(page.takeInventoryAnnouncedEarly()).toBeNull();
  });

  it("gives nothing where the page's first script asked nothing (the app then asks main itself)", async () => {
    const page = await freshPage({ ok: true, data: VIEW });
    expect(page.takeFirstInventory()).toBeNull();
    expect(page.takeInventoryAnnouncedEarly()).toBeNull();
    expect(page.main.asked).toEqual([]);
  });
});
