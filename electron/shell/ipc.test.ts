import { describe, expect, it, vi } from "vitest";
import { INVOKE_CHANNELS, IPC_PREFIX } from "../../shared/contract/index.js";
import type { HandlerTable } from "../core/handlers/table.js";
import { fakeEvent } from "../test-support/fake-electron.js";
import { registerIpcHandlers, UNTRUSTED_SENDER_MESSAGE } from "./ipc.js";

function setup(trusted: boolean) {
  const registered = new Map<string, (event: unknown, payload: unknown) => unknown>();
  const ipcMain = {
    handle: (channel: string, handler: (event: unknown, payload: unknown) => unknown) =>
      registered.set(channel, handler),
    removeHandler: (channel: string) => registered.delete(channel),
  };
  const handler = vi.fn(async () => ({ ok: true, data: {} }));
  const handlers = Object.fromEntries(
    INVOKE_CHANNELS.map((channel) => [channel, handler]),
  ) as unknown as HandlerTable;
  const log = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const off = registerIpcHandlers({ ipcMain: ipcMain as never, handlers, isTrusted: () => trusted, log });
  return { registered, handler, log, off };
}

describe("IPC registration (#17)", () => {
  it("registers exactly the contract channels, prefixed, and removes them again", () => {
    const { registered, off } = setup(true);
    expect([...registered.keys()].sort()).toEqual(
      INVOKE_CHANNELS.map((channel) => `${IPC_PREFIX}${channel}`).sort(),
    );
    off();
    expect(registered.size).toBe(0);
  });

  it("answers an untrusted sender with untrusted-sender, and the handler never runs", async () => {
    const { registered, handler, log } = setup(false);
    for (const channel of INVOKE_CHANNELS) {
      const answer = await registered.get(`${IPC_PREFIX}${channel}`)!(fakeEvent(), {});
      expect(answer).toEqual({
        ok: false,
        error: { code: "untrusted-sender", message: UNTRUSTED_SENDER_MESSAGE },
      });
    }
    expect(handler).not.toHaveBeenCalled();
    expect(log.warn).toHaveBeenCalledTimes(INVOKE_CHANNELS.length);
  });

  it("passes a trusted call to the shared handler table as an electron-host call", async () => {
    const { registered, handler } = setup(true);
    await registered.get(`${IPC_PREFIX}jobs:get`)!(fakeEvent(), { jobId: "j" });
    expect(handler).toHaveBeenCalledWith({ jobId: "j" }, { host: "electron" });
  });
});
