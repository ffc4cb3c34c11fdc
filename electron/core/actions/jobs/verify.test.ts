import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../../simulator/index.js";
import { SECRET_KEY, sandboxes } from "../../../../test/fixtures/leasekeeper.js";
import { CreateosClient } from "../../createos/client.js";
import { configureOrigin } from "../../createos/pacer.js";
import { DEFAULT_ACTION_OPTIONS } from "../options.js";
import { AccountReader, type SandboxRead } from "./account-reader.js";
import { PacedAccount } from "./paced-account.js";
import { batchSize } from "./runner.js";
import { isTransitioningTo, judgeReadBack, Verifier } from "./verify.js";

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
  // Absence counts only after this account listed the sandbox live in this job: a 404 is never proof.
  it.each([
    ["delete", listed("destroyed"), false, "confirmed"],
    ["delete", listed("failed"), false, "confirmed"],
    ["delete", absent, true, "confirmed"],
    ["delete", absent, false, "unconfirmed"],
    ["delete", listed("destroying"), true, "waiting"],
    ["delete", listed("running"), true, "waiting"],
    ["delete", failed, true, "waiting"],
    ["pause", listed("paused"), false, "confirmed"],
    ["pause", listed("pausing"), true, "waiting"],
    ["pause", listed("running"), true, "waiting"],
    ["pause", absent, true, "confirmed"],
    ["pause", absent, false, "unconfirmed"],
    ["pause", listed("error"), true, "failed"],
    ["pause", failed, true, "waiting"],
  ] as const)("%s, then %o (seen live before: %s): %s", (effect, read, seenLive, expected) => {
    expect(judgeReadBack(effect, read, seenLive).kind).toBe(expected);
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

describe("the verifier against the simulator", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      fleet: { accounts: [{ apiKey: SECRET_KEY, sandboxes: sandboxes("sb-v", 3) }] },
      rateLimitPerMinute: 0,
      transitionMs: 0,
    });
    configureOrigin(sim.url, { requestsPerMinute: 6000 });
  });
  afterAll(() => sim.stop());

  it("reads what was sent one poll after the account is done acting, not after the acting reads' longer wait", async () => {
    const client = new PacedAccount(new CreateosClient({ apiUrl: sim.url, apiKey: SECRET_KEY }), "default");
    const reader = new AccountReader(client, { pageSize: 500, knownSize: 3 });
    await reader.list();
    // At 300 requests a minute an account of 1,500 sandboxes reads back what it sent every 6 s while
    // acting; an hour stands for any wait far longer than a verification poll.
    const verifier = new Verifier(reader, { pollMs: 20, timeoutMs: 60_000, actingPollMs: 3_600_000 });
    const outcome = verifier.watch("sb-v-00001", "delete");
    await client.deleteSandbox("sb-v-00001");
    // The test's timeout fails this when draining waits out the acting reads' interval first.
    await verifier.drain();
    expect(await outcome).toEqual({
      state: "confirmed",
      message: "CreateOS lists the sandbox as destroyed.",
    });
  }, 10_000);
});
