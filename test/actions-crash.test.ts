import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, eventually, type World } from "../electron/core/actions/testing/world.js";
import { DATABASE_FILE_NAME } from "../electron/core/store/database.js";

// A job run in its own process, killed with SIGKILL halfway: the next process must show it interrupted,
// resume it to completion without deleting any sandbox twice, and hold an intact audit log of every item.

const here = path.dirname(fileURLToPath(import.meta.url));
const runner = path.join(here, "fixtures", "run-action-job.ts");
const root = path.resolve(here, "..");
const COUNT = 40;

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe("a job process killed mid-run", () => {
  it("is shown interrupted, resumes to completion, deletes each sandbox once, and loses no audit row", async () => {
    const fleet = Array.from({ length: COUNT }, (_, n) => ({ id: `sb-crash-${String(n).padStart(2, "0")}` }));
    world = await buildWorld({
      sandboxes: fleet,
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: fleet.map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: "env-1",
        sandboxId: sandbox.id,
      })),
      rateLimitPerMinute: 900,
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: fleet.map((sandbox) => `lease-${sandbox.id}`) },
    });
    expect(plan.counts.do).toBe(COUNT);

    const child = spawn(
      "npx",
      [
        "tsx",
        runner,
        world.configFile,
        plan.planId,
        JSON.stringify({ itemsPerListRequest: 4, verifyPollMs: 25 }),
      ],
      {
        cwd: root,
        env: { ...process.env, ...world.env },
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );

    const deletes = async () =>
      Object.values((await world!.stats()).perSandbox).reduce(
        (sum, routes) => sum + (routes["DELETE /v1/sandboxes/:id"] ?? 0),
        0,
      );
    await eventually(
      async () => (await deletes()) >= COUNT / 3,
      `a third of the deletes (${output})`,
      20_000,
    );
    process.kill(-child.pid!, "SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const jobId = /^job (\S+)$/m.exec(output)?.[1];
    expect(jobId).toBeDefined();
    const deletedBeforeCrash = await deletes();
    expect(deletedBeforeCrash).toBeLessThan(COUNT);

    const interrupted = (await engine.getJob(jobId!))!;
    expect(interrupted.state).toBe("interrupted");
    expect(interrupted.counts.confirmed).toBeGreaterThan(0);
    expect(interrupted.counts.pending + interrupted.counts.running).toBeGreaterThan(0);

    const resumed = await engine.resume(jobId!);
    expect(resumed.parentJobId).toBe(jobId);
    expect(resumed.items).toHaveLength(COUNT - interrupted.counts.confirmed);
    const finished = await engine.waitForJob(resumed.jobId);
    expect(finished.state).toBe("completed");
    expect(finished.counts.confirmed).toBe(finished.items.length);
    await expect(engine.resume(jobId!)).rejects.toMatchObject({ code: "job-already-resumed" });

    const stats = await world.stats();
    for (const { id } of fleet) {
      expect(stats.perSandbox[id]?.["DELETE /v1/sandboxes/:id"], `DELETEs of ${id}`).toBe(1);
      expect(await world.statusOf(id)).toBe("destroyed");
    }

    const itemRows = (await engine.queryAudit({ limit: 10_000 })).entries.filter(
      (entry) => entry.kind === "item",
    );
    expect(itemRows).toHaveLength(COUNT);
    expect(new Set(itemRows.map((entry) => entry.sandboxId)).size).toBe(COUNT);
    expect(itemRows.every((entry) => entry.outcome === "confirmed")).toBe(true);

    const db = new BetterSqlite3(path.join(world.dir, "data", DATABASE_FILE_NAME), { readonly: true });
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      db.close();
    }
  }, 60_000);
});
