import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { TOKEN_HEADER } from "../shared/contract/bridge.js";
import type { Plan } from "../shared/domain/actions.js";
import { buildWorld, type World } from "./core/actions/testing/world.js";
import { CORE_CLOSE_BUDGET_MS } from "./core/app/closing.js";
import { memoryLogger } from "./core/app/log.js";
import { openCore } from "./core/compose/index.js";
import { DATABASE_FILE_NAME } from "./core/store/database.js";

// `npm run serve` stopped with a destroy in flight: the browser host waits (bounded) for the core to
// close, so the job is journalled as interrupted, and the next start shows what was left.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");
const SERVING = /Leasekeeper is serving on (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)/;

let world: World | null = null;
let child: ChildProcess | null = null;
afterEach(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  child = null;
  await world?.close();
  world = null;
});

function serving(process: ChildProcess): Promise<{ origin: string; token: string; output: () => string }> {
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the browser host printed no URL:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = SERVING.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ origin: match[1]!, token: match[2]!, output: () => output });
      }
    };
    process.stdout?.on("data", read);
    process.stderr?.on("data", read);
    process.once("exit", (code) => reject(new Error(`the browser host exited (${code}):\n${output}`)));
  });
}

describe("stopping the browser host", () => {
  it("waits for the core to close, so a job cut short reads interrupted at the next start", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-slow" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-slow", environmentId: "env-1", sandboxId: "sb-slow" }],
    });
    child = spawn(
      TSX,
      [path.join(ROOT, "electron", "serve.ts"), "--config", world.configFile, "--no-build"],
      {
        cwd: ROOT,
        env: { ...process.env, ...world.env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const host = await serving(child);
    const call = async (channel: string, body: unknown) => {
      const response = await fetch(`${host.origin}/api/${channel}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", [TOKEN_HEADER]: host.token },
        body: JSON.stringify(body),
      });
      const result = (await response.json()) as { ok: boolean; data?: unknown; error?: { message: string } };
      if (!result.ok) throw new Error(`${channel}: ${result.error?.message}`);
      return result.data;
    };

    const plan = (await call("actions:plan", {
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-slow"] },
    })) as Plan;
    // The DELETE reaches CreateOS and takes seconds to answer: the host is asked to stop meanwhile.
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/sb-slow$", latencyMs: 3_000 }]);
    const { jobId } = (await call("actions:execute", { planId: plan.planId })) as { jobId: string };
    // The DELETE has reached the simulator, which holds it (its latency rule fired).
    await expect
      .poll(async () => (await world!.stats()).faultsFired, {
        timeout: 10_000,
        interval: 10,
        message: "the DELETE never reached the simulator",
      })
      .toBeGreaterThan(0);

    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
    const stoppedAt = Date.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    // Well inside the close budget: the job stops before its next step and is journalled, not dropped.
    expect(Date.now() - stoppedAt).toBeLessThan(CORE_CLOSE_BUDGET_MS);

    // What the closing host itself journalled, before any later start could sweep the job.
    const { dataDir } = JSON.parse(readFileSync(world.configFile, "utf8")) as { dataDir: string };
    const db = new BetterSqlite3(path.resolve(path.dirname(world.configFile), dataDir, DATABASE_FILE_NAME), {
      readonly: true,
    });
    try {
      const row = db.prepare("SELECT state FROM action_jobs WHERE job_id = ?").get(jobId) as {
        state: string;
      };
      expect(row.state).toBe("interrupted");
    } finally {
      db.close();
    }

    world.sim.setFaults([]);
    const next = await openCore({
      configPath: world.configFile,
      mode: "browser",
      version: "test",
      env: world.env,
      log: memoryLogger(),
      autoRefresh: false,
    });
    try {
      const job = (await next.engine!.listJobs()).jobs.find((candidate) => candidate.jobId === jobId);
      expect(job?.state).toBe("interrupted");
    } finally {
      await next.close();
    }
  }, 120_000);
});
