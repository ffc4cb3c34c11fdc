import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../electron/core/config/load.js";
import { createSources } from "../electron/core/leases/index.js";
import { type Demo, startDemo } from "./demo.js";

// What `npm start` runs with nothing configured: the leases come from the Paperclip stand-in over REST,
// through the same config entry and source a real deployment uses.

describe("the demo", () => {
  let demo: Demo | undefined;
  afterEach(async () => {
    await demo?.stop();
    demo = undefined;
  });

  it("reads every lease from the Paperclip stand-in with a board key from the environment", async () => {
    demo = await startDemo({ size: 120, seed: "demo-test", rateLimitPerMinute: 0 });
    const config = await loadConfig(demo.configPath);
    expect(config.sources).toEqual([
      {
        kind: "paperclip",
        id: "demo paperclip",
        url: demo.paperclip?.url,
        tokenEnv: "LEASEKEEPER_DEMO_PAPERCLIP_TOKEN",
      },
    ]);

    const [source] = createSources(config, { env: demo.keys });
    const snapshot = await source!.load();
    expect(snapshot.leases.map((row) => row.id).sort()).toEqual(
      demo.world.ledger.leases.map((row) => row.id).sort(),
    );
    expect(snapshot.companies.map((company) => company.name)).toEqual(
      demo.world.companies.map((company) => company.name),
    );
    expect(snapshot.environments.every((environment) => environment.companyId === null)).toBe(true);
    expect(snapshot.gaps).toEqual([]);
    const requests = demo.paperclip?.requests ?? [];
    expect(requests.filter((request) => request.path.endsWith("/environments"))).toHaveLength(1);
    expect(requests.every((request) => request.bearer && request.status === 200)).toBe(true);
  });

  it("keeps the board key out of every file it writes", async () => {
    demo = await startDemo({ size: 60, seed: "demo-test", rateLimitPerMinute: 0 });
    const token = demo.keys.LEASEKEEPER_DEMO_PAPERCLIP_TOKEN;
    expect(token).toMatch(/^pcp_board_demo_[0-9a-f]{32}$/);
    for (const name of await readdir(demo.dir)) {
      expect(await readFile(path.join(demo.dir, name), "utf8"), name).not.toContain(token);
    }
  });

  it("reads the ledger file instead when asked", async () => {
    demo = await startDemo({ size: 60, seed: "demo-test", rateLimitPerMinute: 0, leases: "ledger" });
    expect(demo.paperclip).toBeNull();
    const config = await loadConfig(demo.configPath);
    expect(config.sources.map((source) => source.kind)).toEqual(["ledger"]);
    const snapshot = await createSources(config)[0]!.load();
    expect(snapshot.leases).toHaveLength(60);
  });
});
