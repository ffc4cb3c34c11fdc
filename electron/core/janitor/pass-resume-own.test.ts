import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { buildWorld, type World, withTypedCount } from "../actions/testing/world.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";

// A pass resumes only the interrupted jobs its own data directory noted taking. The audit log names a
// plan's operator as the configured name, which any console configured with that name shares, so a
// job planned under the policy's name may be a person's: it is left to them, and the report names it.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const IDS = ["sb-1", "sb-2", "sb-3", "sb-busy"];

function passLine(stdout: string): PassReport {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as PassReport & { type: string })
    .find((line) => line.type === "pass")!;
}

describe("a janitor pass resuming interrupted jobs", () => {
  it("leaves a job a person ran with the override under the policy's operator name", async () => {
    world = await buildWorld({
      sandboxes: IDS.map((id) => ({ id })),
      environments: [ENV],
      // One request each two seconds, so the console closes with the later DELETEs not yet sent.
      rateLimitPerMinute: 30,
      leases: IDS.map((id) => ({
        id: `lease-${id}`,
        environmentId: "env-1",
        sandboxId: id,
        ...(id === "sb-busy" ? { status: "active", heartbeatRunId: "run-1" } : {}),
      })),
    });
    const config = JSON.parse(readFileSync(world.configFile, "utf8")) as Record<string, unknown>;
    writeFileSync(world.configFile, JSON.stringify({ ...config, operator: "night-janitor" }));

    // A person configured as "night-janitor" destroys all four, the in-use one with the override; the
    // console closes as the first DELETE goes, one request at a time, leaving the job interrupted.
    const engine = await world.engine({ actConcurrency: 1 });
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: IDS.map((id) => `lease-${id}`) },
    });
    expect(plan.items.find((item) => item.sandboxId === "sb-busy")?.requiresOverride).toBe(true);
    let closing: Promise<void> | null = null;
    engine.onEvent((event) => {
      if (event.type === "item" && event.item.state === "running" && closing === null)
        closing = engine.close();
    });
    const job = await engine.execute(withTypedCount(plan, { planId: plan.planId, override: true }));
    expect((await engine.waitForJob(job.jobId)).state).toBe("interrupted");
    await (closing ?? engine.close());
    expect(await world.statusOf("sb-busy")).toBe("running");

    writeFileSync(
      path.join(world.dir, "policy.json"),
      JSON.stringify({
        version: 1,
        operator: "night-janitor",
        rules: [{ name: "none", select: { environment: ["env-none"] }, action: "destroy" }],
      }),
    );
    const run = await runCliCaptured(["watch", "--policy", "policy.json", "--once", "--act", "--json"], {
      env: world.env,
      dir: world.dir,
    });
    expect(run.code, run.stderr).toBe(0);
    const pass = passLine(run.stdout);
    expect(await world.statusOf("sb-busy"), "the in-use sandbox").toBe("running");
    expect(pass.resumedJobs).toEqual([]);
    expect(pass.unjudgedJobs).toEqual([job.jobId]);

    const text = await runCliCaptured(["watch", "--policy", "policy.json", "--once", "--act"], {
      env: world.env,
      dir: world.dir,
    });
    expect(text.stdout).toContain(`interrupted jobs left unresumed`);
    expect(text.stdout).toContain(job.jobId);
  }, 120_000);
});
