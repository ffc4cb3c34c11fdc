import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openEngine } from "../../electron/core/actions/testing/world.js";
import { engineActions } from "../../electron/core/compose/index.js";
import { type LeasekeeperConfig, loadConfig } from "../../electron/core/config/load.js";
import { EnvSecretStore } from "../../electron/core/config/secrets.js";
import { scanInventory } from "../../electron/core/inventory/scan.js";
import { createSources } from "../../electron/core/leases/index.js";
import { type Demo, startDemo } from "../../scripts/demo.js";
import { HEADLINES } from "../../shared/domain/codes.js";
import type { Inventory } from "../../shared/domain/inventory.js";
import type { FaultRule, SimStats } from "../../simulator/index.js";
import { faultLabel } from "../../simulator/stats.js";
import { CHAOS_RETRY } from "./support/chaos-world.js";
import { writeFigures } from "./support/figures.js";
import { checkScanAgainstTruth, lostInScan, type ScanHoldings } from "./support/invariants.js";
import { CHAOS_SIZE, sized } from "./support/size.js";

// The fault matrix for inventory scans, over the generated demo world (every verdict, two accounts, two
// origins, pagination at the full size). A scan under faults is compared row by row with a fault-free
// scan of the same world: it may know less (`unknown`), never something else; nothing the lease store or
// the simulator holds may go missing from it (the items lost, counted from what they hold). Each scenario
// shows that its own fault rules fired, and its own outage happened. And a plan made from the faulted
// inventory never acts on a row whose state is unknown, not visible, or gone.

const SIZE = sized(300, 3_000);
const SEEDS = sized(["chaos-1"], ["chaos-1", "chaos-2", "chaos-3"]);
const LIST: Pick<FaultRule, "method" | "path"> = { method: "GET", path: "^/v1/sandboxes$" };

interface ScanScenario {
  name: string;
  faults: (keys: string[]) => FaultRule[];
  /** Runs the scan while the origin is away: from before it starts, or from once its first listing arrived. */
  outage?: "before" | "mid-scan";
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
    outage: "before",
    allUnknown: true,
  },
  {
    name: "the origin goes away mid-scan",
    faults: () => [{ ...LIST, latencyMs: 300 }],
    outage: "mid-scan",
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
      runsBy: [] as {
        name: string;
        rules: string[];
        rulesFired: Record<string, number>;
        faults: number;
        outage: boolean;
        outageSeen: boolean;
        itemsLost: number;
        lost: string[];
      }[],
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

    /** What the lease store (the Paperclip stand-in) and the simulator hold, read from them. */
    const holdings = (): ScanHoldings => {
      if (demo.paperclip === null) throw new Error("the demo reads its leases from Paperclip");
      return {
        leaseIds: demo.paperclip.world().leases.map((lease) => String(lease.id)),
        sandboxIds: demo.simulator
          .sandboxes()
          .flatMap((account) => account.sandboxes.map((sandbox) => sandbox.id)),
      };
    };

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
        const rules = scenario.faults(Object.values(demo.keys));
        demo.simulator.setFaults(rules);
        let faulted: Inventory;
        let reachedBeforeOutage = false;
        try {
          if (scenario.outage === "before") {
            await demo.simulator.suspend();
            faulted = await scan(scenario.requestTimeoutMs);
          } else if (scenario.outage === "mid-scan") {
            const scanning = scan(scenario.requestTimeoutMs);
            // Mid-scan means a listing has reached the simulator (held there by the latency rule) when it goes.
            await vi.waitFor(
              () => {
                if (demo.simulator.stats().faultsFired === 0) throw new Error("no listing has arrived yet");
              },
              { timeout: 15_000, interval: 5 },
            );
            reachedBeforeOutage = true;
            await demo.simulator.suspend();
            faulted = await scanning;
          } else {
            faulted = await scan(scenario.requestTimeoutMs);
          }
        } finally {
          demo.simulator.setFaults([]);
          await demo.simulator.resume();
        }

        // Counted first, asserted after: a figure that fails its check still reaches the figures file.
        const stats = demo.simulator.stats();
        const lost = lostInScan(holdings(), truth, faulted);
        const outageSeen =
          scenario.outage !== undefined &&
          (scenario.outage === "before" || reachedBeforeOutage) &&
          faulted.origins.every((origin) => !origin.ok);
        const faults = faultsIn(stats);
        totals.runsBy.push({
          name: scenario.name,
          rules: rules.map((rule) => faultLabel(rule)),
          rulesFired: stats.faultsByRule,
          faults,
          outage: scenario.outage !== undefined,
          outageSeen,
          itemsLost: lost.length,
          lost: lost.slice(0, 10),
        });
        totals.itemsLost += lost.length;
        totals.faultsInjected += faults;

        expect(lost, `${scenario.name}: items lost`).toEqual([]);
        // A fault scenario proves something only if its own faults happened: every rule fired in this run.
        for (const rule of rules) {
          expect(
            stats.faultsByRule[faultLabel(rule)] ?? 0,
            `${scenario.name}: rule ${faultLabel(rule)} fired`,
          ).toBeGreaterThan(0);
        }
        if (scenario.outage) expect(outageSeen, `${scenario.name}: the outage happened`).toBe(true);

        const check = checkScanAgainstTruth(truth, faulted);
        expect(check.violations, scenario.name).toEqual([]);
        if (scenario.allUnknown) {
          const known = faulted.leases.filter((row) => row.verdict.provider !== "unknown");
          expect(known.map((row) => `${row.lease.id}: ${row.verdict.provider}`)).toEqual([]);
          expect(faulted.untracked).toEqual([]);
        }

        // A plan from this inventory acts on nothing whose state could not be read or seen.
        // The core's engine, planning from the faulted inventory instead of its own scan.
        const engine = await openEngine({
          configFile: demo.configPath,
          env: { ...process.env, ...demo.keys },
          actions: (deps) =>
            engineActions({
              ...deps,
              // Every headline is selected: the plan reads every row, so the whole faulted inventory is its read.
              inventory: { forPlan: async () => faulted, refresh: () => deps.inventory.refresh() },
            }),
        });
        try {
          for (const action of ["destroy", "release"] as const) {
            const { plan } = await engine.plan({
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
      },
      sized(30_000, 120_000),
    );
  });
}
