import { afterAll, describe, expect, it } from "vitest";
import type { ActionEngine } from "../../electron/core/actions/engine.js";
import type { ActionOptions } from "../../electron/core/actions/options.js";
import { withTypedCount } from "../../electron/core/actions/testing/world.js";
import type { Job, JobEvent } from "../../shared/domain/actions.js";
import type { FaultRule, SimStats } from "../../simulator/index.js";
import { faultLabel } from "../../simulator/stats.js";
import {
  ACCOUNTS,
  ACTED_ROLES,
  buildChaosWorld,
  type ChaosWorld,
  type ChaosWorldOptions,
} from "./support/chaos-world.js";
import { writeFigures } from "./support/figures.js";
import { checkJobs, deletesOf } from "./support/invariants.js";
import { CHAOS_SIZE, sized } from "./support/size.js";

// The fault matrix for bulk jobs: each scenario runs a destroy (or release) plan against the simulator
// while it misbehaves, then checks what the simulator saw against what the engine reported. A table of
// seeded scenarios; `npm test` runs each once over a small fleet, `npm run test:chaos` several seeds over
// a larger one. The figures land in test-results/reliability/chaos-jobs-<size>.json.

const TARGETS = sized(5, 40);
const SEEDS = sized([11], [11, 23, 37, 41]);

const DELETE_ONE: Pick<FaultRule, "method" | "path"> = { method: "DELETE", path: "^/v1/sandboxes/[^/]+$" };
const PAUSE_ONE: Pick<FaultRule, "method" | "path"> = { method: "POST", path: "^/v1/sandboxes/[^/]+/pause$" };
const LIST: Pick<FaultRule, "method" | "path"> = { method: "GET", path: "^/v1/sandboxes$" };
const ANY: Pick<FaultRule, "path"> = { path: "^/v1/" };

interface Scenario {
  name: string;
  faults: FaultRule[];
  world?: Partial<ChaosWorldOptions>;
  engine?: Partial<ActionOptions>;
  action?: "destroy" | "release";
  /** Faults already armed while the plan is made (its scan then sees them too). */
  faultsWhilePlanning?: FaultRule[];
  /** Takes the origin away after this many items have ended; back after `backAfterMs` (never if null). */
  outage?: { afterItems: number; backAfterMs: number | null };
  /** Clears the faults and runs retry-failed over what failed. */
  retryFailed?: boolean;
  /** Extra assertions for the scenario, after the invariants. */
  expect?: (run: Run) => void;
}

interface Run {
  world: ChaosWorld;
  jobs: Job[];
  stats: SimStats;
  planSkips: Map<string, string | null>;
}

const SCENARIOS: Scenario[] = [
  {
    name: "fault-free baseline",
    faults: [],
    expect: ({ world, jobs }) => {
      const last = jobs.at(-1) as Job;
      for (const entry of world.entries.filter((candidate) => ACTED_ROLES.includes(candidate.role))) {
        const item = last.items.find((candidate) => candidate.sandboxId === entry.sandboxId);
        expect(item?.state, `${entry.sandboxId} in a fault-free run`).toBe("confirmed");
      }
    },
  },
  {
    name: "HTTP 500 on a third of the destroys",
    faults: [{ ...DELETE_ONE, status: 500, probability: 0.33 }],
  },
  { name: "HTTP 502 on half of all calls", faults: [{ ...ANY, status: 502, probability: 0.5 }] },
  {
    name: "HTTP 503 with Retry-After on reads and writes",
    faults: [{ ...ANY, status: 503, retryAfterSeconds: 1, probability: 0.3 }],
  },
  {
    name: "a 429 storm with Retry-After",
    faults: [{ ...ANY, status: 429, retryAfterSeconds: 1, count: sized(4, 12) }],
  },
  {
    name: "the provider's own rate limit (real 429s)",
    faults: [],
    world: { simulatorRateLimitPerMinute: 1200, simulatorRateLimitBurst: 4 },
  },
  { name: "added latency on every call", faults: [{ ...ANY, latencyMs: 150 }] },
  { name: "dropped connections", faults: [{ ...ANY, drop: true, probability: 0.25 }] },
  {
    name: "destroys that hang past the timeout",
    faults: [{ ...DELETE_ONE, hang: true, count: 3 }],
    world: { requestTimeoutMs: 500 },
  },
  {
    name: "re-check listings that hang past the timeout",
    faults: [{ ...LIST, hang: true, count: 2 }],
    world: { requestTimeoutMs: 500 },
  },
  {
    name: "answers lost: destroys done after the client gave up, then retry-failed",
    faults: [{ ...DELETE_ONE, latencyMs: 900, probability: 0.5 }],
    world: { requestTimeoutMs: 400 },
    retryFailed: true,
    expect: ({ world, stats }) => {
      // A retried item reads the sandbox first; one the lost answer had destroyed is not sent again.
      for (const entry of world.entries) {
        expect(deletesOf(stats, entry.sandboxId), `DELETEs of ${entry.sandboxId}`).toBeLessThanOrEqual(1);
      }
    },
  },
  {
    name: "the origin goes away mid-job and comes back",
    faults: [],
    outage: { afterItems: 3, backAfterMs: 700 },
  },
  {
    name: "the origin goes away mid-job for good",
    faults: [],
    outage: { afterItems: 3, backAfterMs: null },
    engine: { verifyTimeoutMs: 1_500 },
  },
  {
    name: "one account unreachable while planning: its rows are unknown and never acted on",
    faultsWhilePlanning: [{ ...ANY, apiKey: ACCOUNTS.bravo.key, status: 503 }],
    faults: [],
    expect: ({ world, stats, planSkips }) => {
      for (const entry of world.entries.filter((candidate) => candidate.account === "bravo")) {
        const writes = Object.entries(stats.perSandbox[entry.sandboxId] ?? {}).filter(
          ([route]) => !route.startsWith("GET "),
        );
        expect(writes, `writes to ${entry.sandboxId}`).toEqual([]);
        if (entry.leaseId !== null && ACTED_ROLES.includes(entry.role)) {
          expect(planSkips.get(entry.sandboxId), `plan for ${entry.sandboxId}`).toBe("unknown");
        }
      }
    },
  },
  {
    name: "one account's key refused (401) mid-job",
    faults: [{ ...ANY, apiKey: ACCOUNTS.alpha.key, status: 401 }],
  },
  {
    name: "mixed storm, then retry-failed",
    faults: [
      { ...DELETE_ONE, status: 500, probability: 0.15 },
      { ...ANY, drop: true, probability: 0.1 },
      { ...ANY, status: 429, retryAfterSeconds: 0, probability: 0.1 },
      { ...ANY, latencyMs: 40, probability: 0.3 },
    ],
    retryFailed: true,
  },
  {
    name: "release (pause) under 503s and dropped connections",
    action: "release",
    world: { reuseLease: true },
    faults: [
      { ...PAUSE_ONE, status: 503, probability: 0.3 },
      { ...ANY, drop: true, probability: 0.15 },
    ],
  },
];

const totals = {
  runs: 0,
  items: 0,
  itemsLost: 0,
  faultsInjected: 0,
  /** Fault rules that fired, latency included (the simulator's own count). */
  faultRulesFired: 0,
  requests: 0,
  writes: 0,
  outages: 0,
  outcomes: {} as Record<string, number>,
  scenarios: [] as {
    name: string;
    seed: number;
    items: number;
    faults: number;
    /** The fault rules this scenario armed, by label; each must have fired in this run. */
    rules: string[];
    rulesFired: Record<string, number>;
    /** Whether the scenario takes the origin away, and how often it went away in this run. */
    outage: boolean;
    outages: number;
    /** How the first job ended, before any retry-failed. */
    firstJob: Record<string, number>;
    outcomes: Record<string, number>;
  }[],
};

/** Requests the simulator answered with a fault: error statuses, drops and hangs (latency is not counted). */
function faultsIn(stats: SimStats): number {
  let count = 0;
  for (const outcomes of Object.values(stats.byRoute)) {
    for (const [outcome, n] of Object.entries(outcomes)) {
      const status = Number(outcome);
      const injected =
        outcome === "dropped" || outcome === "hung" || [401, 403, 429].includes(status) || status >= 500;
      if (injected) count += n;
    }
  }
  return count;
}

function endedItems(
  engine: ActionEngine,
  jobId: string,
  afterItems: number,
  onReached: () => void,
): () => void {
  let ended = 0;
  let fired = false;
  return engine.onEvent((event: JobEvent) => {
    if (fired || event.type !== "item" || event.jobId !== jobId) return;
    if (["pending", "running"].includes(event.item.state)) return;
    ended += 1;
    if (ended >= afterItems) {
      fired = true;
      onReached();
    }
  });
}

async function runScenario(scenario: Scenario, seed: number): Promise<void> {
  const world = await buildChaosWorld({ seed, targets: TARGETS, ...scenario.world });
  try {
    const engine = await world.engine(scenario.engine);
    if (scenario.faultsWhilePlanning) world.sim.setFaults(scenario.faultsWhilePlanning);
    const action = scenario.action ?? "destroy";
    const { plan } = await engine.plan({
      action,
      selection: { kind: "leases", leaseIds: world.selectedLeaseIds },
    });
    const planSkips = new Map(plan.items.map((item) => [item.sandboxId ?? "", item.skipReason]));
    if (!scenario.faultsWhilePlanning && action === "destroy") {
      // The harness itself: a fault-free plan does exactly the roles it was built for.
      const doing = plan.items
        .filter((item) => item.decision === "do")
        .map((item) => item.sandboxId)
        .sort();
      const expected = world.entries
        .filter((entry) =>
          ["target", "forced-confirmed", "forced-unconfirmed", "in-use"].includes(entry.role),
        )
        .map((entry) => entry.sandboxId)
        .sort();
      expect(doing).toEqual(expected);
    }
    world.sim.setFaults(scenario.faults);

    let outage: Promise<void> = Promise.resolve();
    // This run's own outages: a second outage scenario must not pass on the first one's.
    let outages = 0;
    const job = await engine.execute(
      withTypedCount(plan, { planId: plan.planId, confirmSandboxIds: world.confirmedSandboxIds }),
    );
    let stopWatching = () => {};
    if (scenario.outage) {
      const { afterItems, backAfterMs } = scenario.outage;
      stopWatching = endedItems(engine, job.jobId, afterItems, () => {
        outages += 1;
        outage = (async () => {
          await world.sim.suspend();
          if (backAfterMs !== null) {
            await new Promise((resolve) => setTimeout(resolve, backAfterMs));
            await world.sim.resume();
          }
        })();
      });
    }
    const jobs: Job[] = [await engine.waitForJob(job.jobId)];
    stopWatching();
    await outage;

    if (scenario.retryFailed && (jobs[0]?.counts.failed ?? 0) > 0) {
      world.sim.setFaults([]);
      const retry = await engine.retryFailed(job.jobId);
      jobs.push(await engine.waitForJob(retry.jobId));
    }
    world.sim.setFaults([]);

    const stats = world.sim.stats();
    const audit = (await engine.queryAudit({ limit: 10_000 })).entries;
    // The plan itself is always recorded, once, before anything it lists is done.
    expect(audit.filter((entry) => entry.kind === "plan" && entry.planId === plan.planId)).toHaveLength(1);
    const check = checkJobs({
      entries: world.entries,
      plan,
      jobs,
      audit,
      stats,
      statuses: world.statuses(),
    });
    // Counted first, asserted after: a figure that fails its check still reaches the figures file.
    const faults = faultsIn(stats);
    totals.runs += 1;
    totals.items += check.items;
    totals.itemsLost += check.itemsLost;
    totals.faultsInjected += faults;
    totals.faultRulesFired += stats.faultsFired;
    totals.requests += stats.total;
    totals.writes += check.mutatingRequests;
    totals.outages += outages;
    for (const [state, n] of Object.entries(check.outcomes))
      totals.outcomes[state] = (totals.outcomes[state] ?? 0) + n;
    const firstJob = Object.fromEntries(
      Object.entries(jobs[0]?.counts ?? {}).filter(([, n]) => n > 0),
    ) as Record<string, number>;
    totals.scenarios.push({
      name: scenario.name,
      seed,
      items: check.items,
      faults,
      rules: [...scenario.faults, ...(scenario.faultsWhilePlanning ?? [])].map((rule) => faultLabel(rule)),
      rulesFired: stats.faultsByRule,
      outage: scenario.outage !== undefined,
      outages,
      firstJob,
      outcomes: check.outcomes,
    });

    expect(check.violations, `${scenario.name} (seed ${seed})`).toEqual([]);
    expect(check.itemsLost).toBe(0);
    // A fault scenario proves something only if its faults happened: every rule fired at least once.
    for (const rule of [...scenario.faults, ...(scenario.faultsWhilePlanning ?? [])]) {
      expect(
        stats.faultsByRule[faultLabel(rule)] ?? 0,
        `${scenario.name}: rule ${faultLabel(rule)} fired`,
      ).toBeGreaterThan(0);
    }
    if (scenario.outage) expect(outages, `${scenario.name}: its own outage happened`).toBe(1);
    scenario.expect?.({ world, jobs, stats, planSkips });
  } finally {
    await world.sim.resume().catch(() => undefined);
    await world.close();
  }
}

describe(`bulk jobs under injected faults (${CHAOS_SIZE})`, () => {
  afterAll(() => {
    writeFigures("chaos-jobs", {
      scenarioCount: SCENARIOS.length,
      seeds: SEEDS,
      targetsPerAccount: TARGETS,
      ...totals,
    });
  });

  for (const scenario of SCENARIOS) {
    it.each(SEEDS)(
      `${scenario.name} — seed %i`,
      async (seed) => runScenario(scenario, seed),
      sized(40_000, 240_000),
    );
  }
});
