import { describe, expect, it } from "vitest";
import { DEFAULT_ACTION_OPTIONS } from "../options.js";
import type { SandboxRead } from "./account-reader.js";
import { batchSize } from "./runner.js";
import { isTransitioningTo, judgeReadBack } from "./verify.js";

const listed = (status: string): SandboxRead => ({
  kind: "listed",
  sandbox: { id: "s", status },
  observedAt: "t",
});
const absent: SandboxRead = { kind: "absent", observedAt: "t" };
const failed: SandboxRead = {
  kind: "failed",
  failure: { httpStatus: 503, reason: "http-503", message: "m" },
};

describe("reading an action back", () => {
  it.each([
    ["delete", listed("destroyed"), "confirmed"],
    ["delete", listed("failed"), "confirmed"],
    ["delete", absent, "confirmed"],
    ["delete", listed("destroying"), "waiting"],
    ["delete", listed("running"), "waiting"],
    ["delete", failed, "waiting"],
    ["pause", listed("paused"), "confirmed"],
    ["pause", listed("pausing"), "waiting"],
    ["pause", listed("running"), "waiting"],
    ["pause", absent, "confirmed"],
    ["pause", listed("error"), "failed"],
    ["pause", failed, "waiting"],
  ] as const)("%s, then %o: %s", (effect, read, expected) => {
    expect(judgeReadBack(effect, read).kind).toBe(expected);
  });

  it("knows a sandbox already on its way (a crashed run's request got through)", () => {
    expect(isTransitioningTo("delete", listed("destroying"))).toBe(true);
    expect(isTransitioningTo("pause", listed("pausing"))).toBe(true);
    expect(isTransitioningTo("delete", listed("running"))).toBe(false);
  });
});

describe("re-check batch size", () => {
  const options = DEFAULT_ACTION_OPTIONS;
  it.each([
    // list pass cost, requests/minute, items per batch
    [1, 300, 40],
    [3, 300, 50],
    [3, 6000, 120],
    [100, 6000, 1000],
    [1, 6, 1],
  ])("a list pass of %i requests at %i/min covers %i items", (cost, perMinute, expected) => {
    expect(batchSize(cost, perMinute, options)).toBe(expected);
  });
});
