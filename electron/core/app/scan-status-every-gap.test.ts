import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { environment, SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import type { Core } from "../compose/index.js";
import { type ChannelCall, channelCaller } from "./testing/app-calls.js";
import { openOneAccountApp } from "./testing/one-account-app.js";

// Through the composition root and the real inventory thread: the status bar's word for each source is
// taken from every gap of the scan, where the inventory view lists only the first 200.

let sim: Simulator;
let dir: string;
let cleanup: () => Promise<void>;
let app: Core;
let call: ChannelCall;

/** More entries than the view lists gaps, all in the first source, so the second's gap comes after them. */
const UNREADABLE_IN_FIRST = 201;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  sim = await startSimulator({
    fleet: { accounts: [{ apiKey: SECRET_KEY, sandboxes: [] }] },
    rateLimitPerMinute: 0,
  });
  const environments = [
    environment({ config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" } }),
  ];
  // An entry that is not an object is a gap of its own ("leases[N] could not be read").
  await writeJson(path.join(dir, "first.json"), {
    environments,
    leases: Array.from({ length: UNREADABLE_IN_FIRST }, () => 42),
  });
  await writeJson(path.join(dir, "second.json"), { environments, leases: [42] });
  app = await openOneAccountApp({
    dir,
    sources: [
      { kind: "ledger", name: "first", path: path.join(dir, "first.json") },
      { kind: "ledger", name: "second", path: path.join(dir, "second.json") },
    ],
    origin: sim.url,
  });
  call = channelCaller(() => app);
});

afterAll(async () => {
  await app?.close();
  await sim?.stop();
  await cleanup?.();
});

describe("the scan status of sources with more gaps than the view lists", () => {
  it("says a source whose only gap comes after the 200th was read partly, and counts every gap of each", async () => {
    const view = await call("inventory:get", { refresh: true });
    // The view lists the first 200, all of the first source's.
    expect(view.gapCount).toBe(UNREADABLE_IN_FIRST + 1);
    expect(view.gaps.every((gap) => gap.source === "first")).toBe(true);

    const { scan } = await call("status:get");
    const of = (sourceId: string) => scan?.sources.find((source) => source.sourceId === sourceId);
    expect(of("second")).toMatchObject({
      outcome: "partial",
      message: "The ledger second.json was not read completely: leases[0] could not be read.",
    });
    expect(of("first")).toMatchObject({
      outcome: "partial",
      message: `The ledger first.json was not read completely: leases[0] could not be read. (and ${UNREADABLE_IN_FIRST - 1} more)`,
    });
    expect(scan?.outcome).toBe("partial");
  });
});
