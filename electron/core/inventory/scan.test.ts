import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import {
  environment,
  leaseRow,
  OTHER_KEY,
  SECRET_KEY,
  sandboxes,
  tempDir,
  writeJson,
} from "../../../test/fixtures/leasekeeper.js";
import { type LeasekeeperConfig, parseConfig } from "../config/load.js";
import { EnvSecretStore } from "../config/secrets.js";
import { configureOrigin } from "../createos/pacer.js";
import { createSources } from "../leases/index.js";
import { type FakePaperclip, startFakePaperclip } from "../leases/testing/fake-paperclip.js";
import { listCredential, scanInventory } from "./scan.js";

const PAPERCLIP_ENVIRONMENT = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";

describe("scanInventory", () => {
  let sim: Simulator;
  let paperclip: FakePaperclip;
  let dir: string;
  let cleanup: () => Promise<void>;
  let config: LeasekeeperConfig;
  const fleetA = sandboxes("sb-a", 700);
  const fleetB = sandboxes("sb-b", 40);
  const env = { LK_KEY_A: SECRET_KEY, LK_KEY_B: OTHER_KEY, PAPERCLIP_TOKEN: "pcp_board_1" };

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    sim = await startSimulator({
      fleet: {
        accounts: [
          { apiKey: SECRET_KEY, sandboxes: fleetA },
          { apiKey: OTHER_KEY, sandboxes: fleetB },
        ],
      },
      rateLimitPerMinute: 0,
    });
    configureOrigin(sim.url, { requestsPerMinute: 6000 });
    // 600 ledger rows over account A's sandboxes and 30 Paperclip rows over account B's.
    const ledgerRows = fleetA.slice(0, 600).map((sandbox) => leaseRow(sim.url, sandbox.id));
    await writeJson(path.join(dir, "ledger.json"), {
      environments: [
        environment({ config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" } }),
      ],
      leases: ledgerRows,
    });
    const paperclipEnvironment = environment({
      id: PAPERCLIP_ENVIRONMENT,
      config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" },
    });
    paperclip = await startFakePaperclip(
      {
        companies: [{ id: paperclipEnvironment.companyId, name: "Acme" }],
        environments: [paperclipEnvironment],
        leasesByEnvironment: {
          [PAPERCLIP_ENVIRONMENT]: fleetB
            .slice(0, 30)
            .map((sandbox) => leaseRow(sim.url, sandbox.id, { environmentId: PAPERCLIP_ENVIRONMENT })),
        },
      },
      { token: "pcp_board_1" },
    );
    config = parseConfig(
      {
        sources: [
          { kind: "ledger", path: "ledger.json" },
          { kind: "paperclip", url: paperclip.url, tokenEnv: "PAPERCLIP_TOKEN", name: "paperclip" },
        ],
        credentials: [
          { name: "account A", origin: sim.url, apiKeyEnv: "LK_KEY_A" },
          { name: "account B", origin: `${sim.url}/v1`, apiKeyEnv: "LK_KEY_B" },
          { name: "account C", origin: sim.url, apiKeyEnv: "LK_KEY_C_UNSET" },
        ],
        dataDir: "data",
        rateLimitPerMinute: 6000,
      },
      path.join(dir, "leasekeeper.config.json"),
    );
  });
  afterAll(async () => {
    await sim?.stop();
    await paperclip?.stop();
    await cleanup?.();
  });

  const scan = () =>
    scanInventory({
      config,
      sources: createSources(config, { env }),
      secrets: new EnvSecretStore(config.credentials, env),
    });

  it("reads every source and lists each account once, whatever the number of leases", async () => {
    sim.reset();
    const inventory = await scan();
    expect(inventory.leases).toHaveLength(630);
    expect(new Set(inventory.leases.map((lease) => lease.sourceId))).toEqual(
      new Set(["ledger:ledger.json", "paperclip"]),
    );
    // ceil(700 / 500) + ceil(40 / 500); the credential without a key costs nothing.
    expect(inventory.requests).toBe(3);
    expect(sim.stats().byRoute).toEqual({ "GET /v1/sandboxes": { "200": 3 } });
    expect(sim.stats().total).toBe(3);
    const running = inventory.leases.find((lease) => lease.lease.providerLeaseId === "sb-a-00001");
    expect(running?.verdict.provider).toBe("running");
    // Account A's 100 sandboxes no row names, less the ten destroyed ones, are orphans.
    expect(inventory.untracked.filter((sandbox) => sandbox.sandboxId.startsWith("sb-a-"))).toHaveLength(90);
  });

  it("reports a credential without a key as a failed listing, not an error", async () => {
    const inventory = await scan();
    expect(inventory.origins).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ credential: "account C", ok: false, reason: "no-credential" }),
        expect.objectContaining({ credential: "account A", ok: true, sandboxCount: 700 }),
      ]),
    );
  });

  it("turns a hung listing into a timeout outcome for that credential only", async () => {
    sim.setFaults([{ apiKey: OTHER_KEY, path: "^/v1/sandboxes$", hang: true }]);
    try {
      const listing = await listCredential(
        { ...config, requestTimeoutMs: 200 },
        new EnvSecretStore(config.credentials, env),
        config.credentials[1]!,
      );
      expect(listing).toEqual({
        listing: { origin: sim.url, credential: "account B", outcome: { ok: false, reason: "timeout" } },
        requests: 1,
      });
    } finally {
      sim.setFaults([]);
    }
  });

  it("fails the whole scan when a source cannot be read", async () => {
    const broken = {
      ...config,
      sources: [...config.sources, { kind: "ledger" as const, id: "gone", path: path.join(dir, "x.json") }],
    };
    await expect(
      scanInventory({
        config: broken,
        sources: createSources(broken, { env }),
        secrets: new EnvSecretStore([], env),
      }),
    ).rejects.toThrow(/^gone: cannot read ledger file/);
  });

  it("refuses to start a Paperclip source whose token variable is unset", () => {
    expect(() => createSources(config, { env: {} })).toThrow(
      "paperclip: the Paperclip token variable PAPERCLIP_TOKEN is not set.",
    );
  });
});
