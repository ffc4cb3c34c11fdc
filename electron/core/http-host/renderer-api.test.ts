import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../renderer/src/api/api-error";
import { type EventStream, httpTransport } from "../../../renderer/src/api/http-transport";
import { createApi } from "../../../renderer/src/api/index";
import { EventHub } from "../handlers/events";
import { createHandlerTable } from "../handlers/table";
import { fakeCore } from "../handlers/testing/fake-calls.js";
import { type HttpHost, startHttpHost } from "./host";

/**
 * The renderer's API module against the real browser host over HTTP: the same code the page runs,
 * with Node's fetch and a fetch-based event stream in place of the browser's.
 */

/** An EventStream over fetch's streaming body (Node has no EventSource), parsing the SSE wire format. */
function fetchEventStream(url: string): EventStream {
  const controller = new AbortController();
  const handlers = new Map<string, (data: string) => void>();
  const errorListeners: Array<() => void> = [];
  const openListeners: Array<() => void> = [];
  void (async () => {
    try {
      const response = await fetch(url, { signal: controller.signal });
      if (response.status !== 200) throw new Error(String(response.status));
      for (const listener of openListeners) listener();
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) handlers.get(event)?.(data);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      if (!controller.signal.aborted) for (const listener of errorListeners) listener();
    }
  })();
  return {
    on: (type, listener) => handlers.set(type, listener),
    onOpen: (listener) => openListeners.push(listener),
    onError: (listener) => errorListeners.push(listener),
    close: () => controller.abort(),
  };
}

let host: HttpHost;
const events = new EventHub();

beforeAll(async () => {
  const table = createHandlerTable(fakeCore().calls, { error: vi.fn() });
  host = await startHttpHost({
    handlers: table,
    events,
    log: { info() {}, warn() {}, error() {} },
    rendererDir: null,
  });
});

afterAll(async () => {
  await host.close();
});

describe("api over the browser host", () => {
  const api = () =>
    createApi(
      httpTransport({ token: host.token, fetch, openEventSource: fetchEventStream, baseUrl: host.origin }),
    );

  it("unwraps a Result into its data", async () => {
    await expect(api().invoke("app:info")).resolves.toMatchObject({ mode: "browser", demo: true });
    const inventory = await api().invoke("inventory:get", {});
    expect(inventory.leases.leaseId.length).toBeGreaterThan(0);
  });

  it("throws an ApiError with the contract's code and message", async () => {
    const error = await api()
      .invoke("jobs:get", { jobId: 7 as unknown as string })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: "invalid-request",
      message: expect.stringMatching(/^jobs:get: jobId: /),
    });
  });

  it("says to reopen the printed URL when the token is wrong", async () => {
    const wrong = createApi(
      httpTransport({ token: "nope", fetch, openEventSource: fetchEventStream, baseUrl: host.origin }),
    );
    await expect(wrong.invoke("app:info")).rejects.toMatchObject({
      code: "untrusted-sender",
      message: expect.stringContaining("URL that Leasekeeper printed"),
    });
  });

  it("says the host is gone when nothing answers", async () => {
    const gone = createApi(
      httpTransport({ token: "t", fetch, openEventSource: fetchEventStream, baseUrl: "http://127.0.0.1:1" }),
    );
    await expect(gone.invoke("app:info")).rejects.toMatchObject({ code: "unavailable" });
  });

  it("delivers events through a ticketed stream, and stops after unsubscribe", async () => {
    const client = api();
    const received: unknown[] = [];
    const off = client.on("inventory:changed", (payload) => received.push(payload));
    // The stream is open once the host listens on the hub.
    await expect.poll(() => events.listenerCount, { timeout: 5_000, interval: 5 }).toBeGreaterThan(0);
    events.emit("inventory:changed", { generatedAt: "2026-01-01T00:00:00.000Z" });
    await expect
      .poll(() => received, { timeout: 5_000, interval: 5 })
      .toEqual([{ generatedAt: "2026-01-01T00:00:00.000Z" }]);
    off();
    await expect.poll(() => events.listenerCount, { timeout: 5_000, interval: 5 }).toBe(0);
  });
});
