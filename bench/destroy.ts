// Benchmark: destroy `count` stale sandboxes in the simulator through the action engine and compare the
// wall time with the floor the rate limit sets (requests made ÷ budget). Run directly:
//   npx tsx bench/destroy.ts --count 1000 --rate-limit 6000
// or through the bench runner: npm run bench -- destroy --count 1000 --rate-limit 6000
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_ACTION_OPTIONS } from "../electron/core/actions/options.js";
import { buildWorld, withTypedCount } from "../electron/core/actions/testing/world.js";

export interface DestroyBenchOptions {
  count: number;
  rateLimitPerMinute: number;
  /** Sandboxes in the same account that are left alone (they make every list pass longer). Default 200. */
  bystanders?: number;
}

export interface DestroyBenchResult {
  /** From execute to the job's end: acting, re-checks and verification. */
  wallMs: number;
  /** The least time the requests made can take at the budget. */
  floorMs: number;
  ratio: number;
  /** CreateOS requests the job made (re-check list passes, DELETEs, retries, verification reads). */
  requests: number;
  requestsPerItem: number;
  /** 429s the simulator's limiter answered during the job. */
  rateLimited: number;
  confirmed: number;
  /** Requests by route, for reading the figures. */
  byRoute: Record<string, number>;
}

export async function runDestroyBench(options: DestroyBenchOptions): Promise<DestroyBenchResult> {
  const { count, rateLimitPerMinute } = options;
  const bystanders = options.bystanders ?? 200;
  const stale = Array.from({ length: count }, (_, n) => ({ id: `sb-stale-${String(n).padStart(5, "0")}` }));
  const kept = Array.from({ length: bystanders }, (_, n) => ({
    id: `sb-kept-${String(n).padStart(5, "0")}`,
  }));
  const world = await buildWorld({
    sandboxes: [...stale, ...kept.map((sandbox) => ({ ...sandbox, status: "paused" as const }))],
    environments: [{ id: "env-bench", name: "Bench", companyId: "company-bench", reuseLease: true }],
    leases: [
      // Released leases whose shape no longer matches the environment: stale, destroyable on a click.
      ...stale.map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: "env-bench",
        sandboxId: sandbox.id,
        metadata: { shape: "s-2vcpu-2gb" },
      })),
      ...kept.map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: "env-bench",
        sandboxId: sandbox.id,
      })),
    ],
    rateLimitPerMinute,
    simulatorRateLimitPerMinute: rateLimitPerMinute,
    transitionMs: 50,
    // CreateOS is remote: its work must not share the engine's event loop and skew the timing.
    simulatorProcess: true,
  });
  try {
    // Production settings, but for a shorter wait between verification reads (the simulator settles fast).
    const engine = await world.engine({ ...DEFAULT_ACTION_OPTIONS, verifyPollMs: 250 });
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "headline", headlines: ["stale"] },
    });
    if (plan.counts.do !== count) throw new Error(`the plan would destroy ${plan.counts.do}, not ${count}`);

    const before = await world.stats();
    const started = performance.now();
    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    const wallMs = performance.now() - started;
    const after = await world.stats();

    const requests = after.total - before.total;
    const floorMs = (requests * 60_000) / rateLimitPerMinute;
    const byRoute: Record<string, number> = {};
    for (const [route, outcomes] of Object.entries(after.byRoute)) {
      const total = Object.values(outcomes).reduce((sum, n) => sum + n, 0);
      const earlier = Object.values(before.byRoute[route] ?? {}).reduce((sum, n) => sum + n, 0);
      if (total > earlier) byRoute[route] = total - earlier;
    }
    return {
      wallMs: Math.round(wallMs),
      floorMs: Math.round(floorMs),
      ratio: Number((wallMs / floorMs).toFixed(3)),
      requests,
      requestsPerItem: Number((requests / count).toFixed(3)),
      rateLimited: after.rateLimited - before.rateLimited,
      confirmed: job.counts.confirmed,
      byRoute,
    };
  } finally {
    await world.close();
  }
}

function isMain(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && import.meta.url === pathToFileURL(entry).href;
}

if (isMain()) {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== "destroy"),
    options: {
      count: { type: "string", default: "1000" },
      "rate-limit": { type: "string", default: "6000" },
    },
    strict: true,
  });
  const result = await runDestroyBench({
    count: Number(values.count),
    rateLimitPerMinute: Number(values["rate-limit"]),
  });
  process.stdout.write(
    [
      `destroy bench: ${values.count} stale sandboxes at ${values["rate-limit"]} requests/minute`,
      `  wall time        ${result.wallMs} ms`,
      `  floor            ${result.floorMs} ms (${result.requests} requests ÷ budget)`,
      `  ratio to floor   ${result.ratio}`,
      `  requests/item    ${result.requestsPerItem}`,
      `  429s             ${result.rateLimited}`,
      `  confirmed        ${result.confirmed}`,
      `  by route         ${JSON.stringify(result.byRoute)}`,
      "",
    ].join("\n"),
  );
}
