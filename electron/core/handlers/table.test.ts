import { describe, expect, it, vi } from "vitest";
import { INVOKE_CHANNELS, MAX_ERROR_MESSAGE } from "../../../shared/contract/index.js";
import { CoreError } from "../errors/core-error.js";
import { EventHub } from "./events.js";
import { createHandlerTable, dispatch } from "./table.js";
import { fakeCore } from "./testing/fake-calls.js";

const context = { host: "test" } as const;

function setup() {
  const core = fakeCore();
  const log = { error: vi.fn() };
  const table = createHandlerTable(core.calls, log);
  return { core, log, table };
}

describe("handler table", () => {
  it("has exactly one handler per contract channel, and is frozen", () => {
    const { table } = setup();
    expect(Object.keys(table).sort()).toEqual([...INVOKE_CHANNELS].sort());
    expect(Object.isFrozen(table)).toBe(true);
  });

  it("parses the request before the core call runs: an invalid request never reaches the core", async () => {
    const { core, table } = setup();
    const answer = await table["jobs:get"]({ jobId: 42 }, context);
    expect(answer).toEqual({
      ok: false,
      error: { code: "invalid-request", message: expect.stringMatching(/^jobs:get: jobId: /) },
    });
    expect(core.received).toHaveLength(0);
  });

  it("names the field path of a nested issue", async () => {
    const { table } = setup();
    const answer = await table["actions:plan"](
      { action: "destroy", selection: { kind: "leases", leaseIds: ["a", 7] } },
      context,
    );
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.message).toMatch(/^actions:plan: selection\.leaseIds\[1\]: /);
  });

  it("never echoes a huge or hostile input and caps the message", async () => {
    const { table } = setup();
    const hugeKey = `\u202e${"k".repeat(100_000)}`;
    const answer = await table["jobs:get"]({ jobId: "j", [hugeKey]: "x".repeat(100_000) }, context);
    expect(answer.ok).toBe(false);
    if (!answer.ok) {
      expect(answer.error.code).toBe("invalid-request");
      expect(answer.error.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
      expect(answer.error.message).not.toContain("\u202e");
      expect(answer.error.message).not.toContain("k".repeat(100));
    }
  });

  it("treats a missing body as an empty request for channels without parameters", async () => {
    const { table } = setup();
    const answer = await table["app:info"](undefined, context);
    expect(answer.ok).toBe(true);
  });

  it("keeps serving after invalid requests", async () => {
    const { table } = setup();
    for (const bad of [null, 1, "x", [], { nope: true }]) {
      expect((await table["settings:get"](bad, context)).ok).toBe(false);
    }
    expect((await table["settings:get"]({}, context)).ok).toBe(true);
  });

  it("answers an unknown channel with invalid-request", async () => {
    const { table } = setup();
    expect(await dispatch(table, "__proto__", {}, context)).toEqual({
      ok: false,
      error: { code: "invalid-request", message: "Unknown channel." },
    });
    expect(await dispatch(table, "shell:exec", {}, context)).toMatchObject({ ok: false });
  });

  it("passes a CoreError's code and sentence through", async () => {
    const { core, table } = setup();
    core.calls["jobs:get"] = () => {
      throw new CoreError("call", "not-found", "No job with that id.");
    };
    const rebuilt = createHandlerTable(core.calls, { error: vi.fn() });
    expect(await rebuilt["jobs:get"]({ jobId: "j" }, context)).toEqual({
      ok: false,
      error: { code: "not-found", message: "No job with that id." },
    });
    void table;
  });

  it("answers an error of any area with the contract code the one mapping gives it, unlogged", async () => {
    const core = fakeCore();
    core.calls["jobs:get"] = () => {
      throw new CoreError("action", "job-running", "The job is still running.");
    };
    const log = { error: vi.fn() };
    const table = createHandlerTable(core.calls, log);
    expect(await table["jobs:get"]({ jobId: "j" }, context)).toEqual({
      ok: false,
      error: { code: "conflict", message: "The job is still running." },
    });
    expect(log.error).not.toHaveBeenCalled();
  });

  it("replaces any other thrown message with a fixed one and logs it", async () => {
    const core = fakeCore();
    core.calls["status:get"] = () => {
      throw new Error("boom with lk_SECRET_canary_7f3a inside");
    };
    const log = { error: vi.fn() };
    const table = createHandlerTable(core.calls, log);
    const answer = await table["status:get"]({}, context);
    expect(answer).toMatchObject({ ok: false, error: { code: "internal" } });
    expect(JSON.stringify(answer)).not.toContain("lk_SECRET");
    expect(log.error).toHaveBeenCalledTimes(1);
  });

  it("drops fields the contract does not name from an answer", async () => {
    const core = fakeCore();
    const original = core.calls["credentials:test"];
    core.calls["credentials:test"] = async (request, ctx) => ({
      ...(await original(request, ctx)),
      apiKey: "should-not-travel",
    });
    const table = createHandlerTable(core.calls, { error: vi.fn() });
    const answer = await table["credentials:test"]({ name: "primary" }, context);
    expect(answer.ok).toBe(true);
    expect(JSON.stringify(answer)).not.toContain("should-not-travel");
  });

  it("turns an answer outside the contract into a fixed internal error", async () => {
    const core = fakeCore();
    core.calls["status:get"] = () => ({ origins: "nope" }) as never;
    const log = { error: vi.fn() };
    const table = createHandlerTable(core.calls, log);
    expect(await table["status:get"]({}, context)).toMatchObject({ ok: false, error: { code: "internal" } });
    expect(log.error).toHaveBeenCalled();
  });
});

describe("event hub", () => {
  it("delivers contract-valid events to every subscriber and stops after unsubscribe", () => {
    const hub = new EventHub();
    const seen: string[] = [];
    const off = hub.subscribe((channel) => seen.push(channel));
    hub.emit("inventory:changed", { generatedAt: "2025-01-01T00:00:00Z" });
    off();
    hub.emit("inventory:changed", { generatedAt: "2025-01-01T00:00:01Z" });
    expect(seen).toEqual(["inventory:changed"]);
  });

  it("refuses to emit a payload outside the contract", () => {
    const hub = new EventHub();
    expect(() => hub.emit("inventory:changed", { nope: 1 } as never)).toThrow(/contract/);
  });

  it("keeps delivering when one subscriber throws", () => {
    const hub = new EventHub();
    const seen: string[] = [];
    hub.subscribe(() => {
      throw new Error("closed window");
    });
    hub.subscribe((channel) => seen.push(channel));
    hub.emit("app:command", { command: "open-palette" });
    expect(seen).toEqual(["app:command"]);
  });
});
