import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildWorld,
  eventually,
  FAST_OPTIONS,
  openEngine,
  type World,
} from "../../electron/core/actions/testing/world.js";
import { DATABASE_FILE_NAME } from "../../electron/core/store/database.js";

// A job process killed with SIGKILL while its DELETEs are on their way to CreateOS (which acts on them
// anyway), and restarted after the plan's lifetime has passed: the restart must still find out what each
// sent request did, confirm it from what CreateOS lists, and write it to the audit log; what was never
// sent is skipped for the expired plan, not sent on an old plan's say-so.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const RUNNER = path.join(ROOT, "test", "fixtures", "run-action-job.ts");
const DELETE = "DELETE /v1/sandboxes/:id";

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe("a crash after sending, resumed once the plan has expired", () => {
  it("verifies and audits every sent item, sends nothing again, and skips what was never sent", async () => {
    const fleet = Array.from({ length: 4 }, (_, n) => ({ id: `sb-late-${n}` }));
    world = await buildWorld({
      sandboxes: fleet,
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: fleet.map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: "env-1",
        sandboxId: sandbox.id,
      })),
    });
    const planner = await world.engine();
    const { plan } = await planner.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: fleet.map((sandbox) => `lease-${sandbox.id}`) },
    });
    expect(plan.counts.do).toBe(fleet.length);
    // CreateOS sits on each DELETE; it acts once the caller is gone.
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", latencyMs: 10_000 }]);

    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        RUNNER,
        world.configFile,
        plan.planId,
        JSON.stringify({ ...FAST_OPTIONS, actConcurrency: 1 }),
      ],
      { cwd: ROOT, env: { ...process.env, ...world.env }, stdio: ["ignore", "pipe", "pipe"] },
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

    const db = new BetterSqlite3(path.join(world.dir, "data", DATABASE_FILE_NAME), { readonly: true });
    const sentMarks = () =>
      db.prepare("SELECT sandbox_id FROM action_job_items WHERE sent_at IS NOT NULL").all() as {
        sandbox_id: string;
      }[];
    await eventually(() => sentMarks().length > 0, `a request journalled as sending (${output})`, 20_000);
    // Once a journalled request has reached CreateOS (which holds it: the latency rule fired), kill the process.
    await expect
      .poll(async () => (await world!.stats()).faultsFired, { timeout: 20_000, interval: 10 })
      .toBeGreaterThan(0);
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const sent = new Set(sentMarks().map((row) => row.sandbox_id));
    db.close();
    world.sim.setFaults([]);
    // CreateOS acts on what reached it once the caller is gone: until every DELETE that arrived is answered.
    // What is still running then was not reached.
    await expect
      .poll(
        async () => {
          const stats = await world!.stats();
          const answered = Object.values(stats.byRoute[DELETE] ?? {}).reduce((sum, n) => sum + n, 0);
          return answered === stats.faultsFired;
        },
        { timeout: 20_000, interval: 10 },
      )
      .toBe(true);
    const acted = new Set<string>();
    for (const { id } of fleet) if ((await world.statusOf(id)) !== "running") acted.add(id);
    expect(acted.size, "at least one request reached CreateOS before the kill").toBeGreaterThan(0);
    for (const id of acted)
      expect(sent.has(id), `${id} was acted on, so it was journalled as sending`).toBe(true);
    const deletesAtCrash = await world.stats();

    // Twenty minutes on: the plan (fifteen minutes) has expired.
    const later = await openEngine({
      configFile: world.configFile,
      env: world.env,
      now: () => new Date(Date.now() + 20 * 60_000),
      options: { ...FAST_OPTIONS, verifyTimeoutMs: 1_000 },
    });
    try {
      const [interrupted] = (await later.listJobs()).jobs;
      expect(interrupted?.state, "the dead process's job, as a second start shows it").toBe("interrupted");
      const resumed = await later.waitForJob((await later.resume(interrupted!.jobId)).jobId);
      expect(resumed.state).toBe("completed");
      const expected = (id: string) =>
        acted.has(id) ? "confirmed" : sent.has(id) ? "unconfirmed" : "skipped";
      for (const item of resumed.items) {
        expect(
          item.state,
          `${item.sandboxId}: acted ${acted.has(item.sandboxId!)}, sent ${sent.has(item.sandboxId!)}`,
        ).toBe(expected(item.sandboxId!));
        if (!sent.has(item.sandboxId!)) expect(item.reason).toBe("plan-expired");
      }
      const audited = (await later.queryAudit({ limit: 1_000 })).entries.filter(
        (entry) => entry.kind === "item",
      );
      for (const { id } of fleet) {
        expect(
          audited.filter((entry) => entry.sandboxId === id).map((entry) => entry.outcome),
          `audit of ${id}`,
        ).toEqual([expected(id)]);
      }
      // Nothing was sent again: every DELETE CreateOS ever answered came from the dead process.
      const stats = await world.stats();
      for (const { id } of fleet) {
        expect(stats.perSandbox[id]?.[DELETE] ?? 0, `DELETEs of ${id}`).toBe(
          deletesAtCrash.perSandbox[id]?.[DELETE] ?? 0,
        );
      }
    } finally {
      await later.close();
    }
  }, 60_000);
});
