import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfiguredActionEngine } from "../../electron/core/actions/index.js";
import { type LeasekeeperConfig, loadConfig } from "../../electron/core/config/load.js";
import { EnvSecretStore } from "../../electron/core/config/secrets.js";
import { scanInventory } from "../../electron/core/inventory/scan.js";
import { createSources } from "../../electron/core/leases/index.js";
import { type Demo, startDemo } from "../../scripts/demo.js";
import { HEADLINES } from "../../shared/domain/codes.js";
import type { Inventory } from "../../shared/domain/inventory.js";
import type { FaultRule, SimStats } from "../../simulator/index.js";
import { CHAOS_RETRY } from "./support/chaos-world.js";
import { writeFigures } from "./support/figures.js";
import { checkScanAgainstTruth } from "./support/invariants.js";
import { CHAOS_SIZE, sized } from "./support/size.js";

// The fault matrix for inventory scans, over the generated demo world (every verdict, two accounts, two
// origins, pagination at the full size). A scan under faults is compared row by row with a fault-free
// scan of the same world: it may know less (`unknown`), never something else. And a plan made from the
// faulted inventory never acts on a row whose state is unknown, not visible, or gone.

const SIZE = sized(300, 3_000);
const SEEDS = sized(["chaos-1"], ["chaos-1", "chaos-2", "chaos-3"]);
const LIST: Pick<FaultRule, "method" | "path"> = { method: "GET", path: "^/v1/sandboxes$" };

interface ScanScenario {
  name: string;
  faults: (keys: string[]) => FaultRule[];
  /** Runs the scan while the origin is away: before it starts, or this many ms into it. */
  outage?: { afterMs: number };
  requestTimeoutMs?: number;
  /** True when every row must come out unknown. */
  allUnknown?: boolean;
}

const SCENARIOS: ScanScenario[] = [
  { name: "fault-free rescan", faults: () => [] },
  { name: "HTTP 500 on half of the listings", faults: () => [{ ...LIST, status: 500, probability: 0.5 }] },
  { name: "HTTP 502 on every listing", faults: () => [{ ...LIST, status: 502 }], allUnknown: true },
  {
    name: "HTTP 503 with Retry-After",
    faults: () => [{ ...LIST, status: 503, retryAfterSeconds: 1, probability: 0.5 }],
  },
  {
    name: "a 429 storm with Retry-After",
    faults: () => [{ ...LIST, status: 429, retryAfterSeconds: 1, count: sized(3, 8) }],
  },
  { name: "added latency", faults: () => [{ ...LIST, latencyMs: 200 }] },
  { name: "dropped connections", faults: () => [{ ...LIST, drop: true, probability: 0.4 }] },
  {
    name: "some listings hang past the timeout",
    faults: () => [{ ...LIST, hang: true, count: 3 }],
    requestTimeoutMs: 500,
  },
  {
    name: "every listing hangs past the timeout",
    faults: () => [{ ...LIST, hang: true }],
    requestTimeoutMs: 400,
    allUnknown: true,
  },
  { name: "one account's key refused (401)", faults: (keys) => [{ ...LIST, apiKey: keys[0], status: 401 }] },
  { name: "one account's connections dropped", faults: (keys) => [{ ...LIST, apiKey: keys[1], drop: true }] },
  {
    name: "the origin is down for the whole scan",
    faults: () => [],
    outage: { afterMs: 0 },
    allUnknown: true,
  },
  {
    name: "the origin goes away mid-scan",
    faults: () => [{ ...LIST, latencyMs: 300 }],
    outage: { afterMs: 120 },
    allUnknown: true,
  },
];

function faultsIn(stats: SimStats): number {
  let count = 0;
  for (const outcomes of Object.values(stats.byRoute)) {
    for (const [outcome, n] of Object.entries(outcomes)) {
      const status = Number(outcome);
      if (outcome === "dropped" || outcome === "hung" || [401, 429].includes(status) || status >= 500)
        count += n;
    }
  }
  return count;
}

for (const seed of SEEDS) {
  describe(`inventory scans under injected faults (${CHAOS_SIZE}, ${SIZE} leases, seed ${seed})`, () => {
    let demo: Demo;
    let config: LeasekeeperConfig;
    let truth: Inventory;
    const totals = {
      runs: 0,
      rowsChecked: 0,
      unknownRows: 0,
      faultsInjected: 0,
      plansChecked: 0,
      itemsLost: 0,
    };
    const dataDir = mkdtempSync(path.join(tmpdir(), "leasekeeper-chaos-scan-"));

    const scan = (requestTimeoutMs = 1_500) => {
      const scanConfig = { ...config, requestTimeoutMs };
      return scanInventory({
        config: scanConfig,
        sources: createSources(scanConfig, { env: { ...process.env, ...demo.keys } }),
        secrets: new EnvSecretStore(scanConfig.credentials, demo.keys),
        client: { retry: CHAOS_RETRY },
      });
    };

    beforeAll(async () => {
      demo = await startDemo({ size: SIZE, seed, rateLimitPerMinute: 0 });
      config = { ...(await loadConfig(demo.configPath)), rateLimitPerMinute: 6_000 };
      truth = await scan();
      // The ground truth itself must be whole: every credential listed, every verdict present.
      expect(truth.origins.every((origin) => origin.ok)).toBe(true);
      expect(truth.leases.some((row) => row.verdict.provider === "gone")).toBe(true);
      expect(truth.leases.some((row) => row.verdict.provider === "not-visible")).toBe(true);
    }, 60_000);

    afterAll(async () => {
      await demo?.simulator.resume().catch(() => undefined);
      await demo?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(demo.dir, { recursive: true, force: true });
      writeFigures(`chaos-inventory-${seed}`, { leases: SIZE, scenarios: SCENARIOS.length, ...totals });
    });

    it.each(SCENARIOS.map((scenario) => [scenario.name, scenario] as const))(
      "%s",
      async (_, scenario) => {
        demo.simulator.reset();
        demo.simulator.setFaults(scenario.faults(Object.values(demo.keys)));
        let faulted: Inventory;
        try {
          if (scenario.outage?.afterMs === 0) {
            await demo.simulator.suspend();
            faulted = await scan(scenario.requestTimeoutMs);
          } else if (scenario.outage) {
            const scanning = scan(scenario.requestTimeoutMs);
            await new Promise((resolve) => setTimeout(resolve, scenario.outage?.afterMs));
            await demo.simulator.suspend();
            faulted = await scanning;
          } else {
            faulted = await scan(scenario.requestTimeoutMs);
          }
        } finally {
          demo.simulator.setFaults([]);
          await demo.simulator.resume();
        }

        const check = checkScanAgainstTruth(truth, faulted);
        expect(check.violations, scenario.name).toEqual([]);
        if (scenario.allUnknown) {
          const known = faulted.leases.filter((row) => row.verdict.provider !== "unknown");
          expect(known.map((row) => `${row.lease.id}: ${row.verdict.provider}`)).toEqual([]);
          expect(faulted.untracked).toEqual([]);
        }

        // A plan from this inventory acts on nothing whose state could not be read or seen.
        const engine = createConfiguredActionEngine({
          config,
          sources: createSources(config, { env: { ...process.env, ...demo.keys } }),
          secrets: new EnvSecretStore(config.credentials, demo.keys),
          inventory: { current: async () => faulted },
          dataDir,
        });
        try {
          for (const action of ["destroy", "release"] as const) {
            const plan = await engine.plan({
              action,
              selection: { kind: "headline", headlines: [...HEADLINES] },
            });
            const acting = plan.items.filter((item) => item.decision === "do");
            expect(
              acting.filter((item) => ["unknown", "not-visible", "gone"].includes(item.verdict.provider)),
              `${action} plan under "${scenario.name}" acts on rows it cannot see`,
            ).toEqual([]);
            expect(plan.items).toHaveLength(faulted.leases.length);
            totals.plansChecked += 1;
          }
        } finally {
          await engine.close();
        }

        totals.runs += 1;
        totals.rowsChecked += check.rows;
        totals.unknownRows += check.unknownRows;
        totals.faultsInjected += faultsIn(demo.simulator.stats());
      },
      sized(30_000, 120_000),
    );
  });
}
