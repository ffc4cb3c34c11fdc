import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionEngine } from "../../electron/core/actions/engine.js";
import { DATABASE_FILE_NAME } from "../../electron/core/store/database.js";
import type { AuditEntry, Job } from "../../shared/domain/actions.js";
import { buildChaosWorld, type ChaosWorld } from "../chaos/support/chaos-world.js";
import { writeFigures } from "../chaos/support/figures.js";
import { KILL_POINTS } from "../chaos/support/figures-check.js";
import { deletesOf, mutatingRequests } from "../chaos/support/invariants.js";
import { CHAOS_SIZE, seededRandom, sized } from "../chaos/support/size.js";
import { bundleJobProcess } from "./support/bundle.js";
import { type KillProxy, type KillTrigger, startKillProxy } from "./support/kill-proxy.js";

// Crash safety, at seeded random points. Bulk destroy jobs run in a process of their own, which is killed
// with SIGKILL at each point: when its n-th request reaches the proxy in front of CreateOS (never sent),
// when the answer to its n-th request is back (CreateOS acted, the process never heard), after its n-th
// line of progress (an item journalled), or after a delay (anywhere, start-up and store opening included;
// a share of the longest run so far, so that it falls inside a run). Each kind must kill at least once.
// Each kill is followed by a restart, as an operator would: the new process must show the job interrupted,
// resume it, and finish it, without a second DELETE for any item, while the SQLite store (journal and
// audit log) passes its integrity check after every kill. (test/actions-crash.test.ts, by the engine's
// author, kills one job once; this suite builds the seeded many-point version on the same engine.)

const KILLS = sized(20, 60);
const SEED = 20_261_130;
// Enough work that the kills, not the targets, run out first (a restart that meets no trigger finishes its plan).
const TARGETS_PER_ACCOUNT = sized(100, 300);
const PLAN_SIZE = sized(8, 16);
const CHILD_OPTIONS = { verifyPollMs: 25, verifyTimeoutMs: 8_000, heartbeatMs: 200, itemsPerListRequest: 3 };

/** A timer kill is a share of the longest run seen so far, so it falls inside a run however fast this machine is. */
type Trigger =
  | Extract<KillTrigger, { n: number }>
  | { on: "line"; n: number }
  | { on: "delay"; share: number };

interface ChildRun {
  /** From spawn to exit. */
  ms: number;
  lines: string[];
  killed: boolean;
  exitCode: number | null;
  stderr: string;
}

function pickTrigger(random: () => number): Trigger {
  const roll = random();
  const n = 1 + Math.floor(random() * 8);
  if (roll < 0.3) return { on: "request", n };
  if (roll < 0.6) return { on: "answer", n };
  if (roll < 0.8) return { on: "line", n: 1 + Math.floor(random() * 4) };
  return { on: "delay", share: 0.05 + random() * 0.45 };
}

function describeTrigger(trigger: Trigger, delayMs: number): string {
  return trigger.on === "delay" ? `after ${delayMs} ms` : `at ${trigger.on} #${trigger.n}`;
}

describe(`a bulk job killed with SIGKILL at ${KILLS} seeded points (${CHAOS_SIZE})`, () => {
  let world: ChaosWorld;
  let proxy: KillProxy;
  let bundle: string;
  let engine: ActionEngine;

  beforeAll(async () => {
    bundle = await bundleJobProcess();
    world = await buildChaosWorld({
      seed: SEED,
      targets: TARGETS_PER_ACCOUNT,
      transitionMs: 30,
      // No faults here but the kills: a slow machine must not turn a re-check read into a timeout.
      requestTimeoutMs: 10_000,
      front: async (simulatorUrl) => {
        proxy = await startKillProxy(simulatorUrl);
        return proxy.url;
      },
    });
    engine = await world.engine();
  }, 60_000);

  afterAll(async () => {
    await world?.close();
    await proxy?.close();
  });

  const databaseFile = () => path.join(world.config.dataDir, DATABASE_FILE_NAME);

  function integrity(): { ok: string; foreignKeys: unknown[] } {
    const db = new BetterSqlite3(databaseFile());
    try {
      return {
        ok: db.pragma("integrity_check", { simple: true }) as string,
        foreignKeys: db.pragma("foreign_key_check") as unknown[],
      };
    } finally {
      db.close();
    }
  }

  function confirmedInJournal(): string[] {
    const db = new BetterSqlite3(databaseFile(), { readonly: true });
    try {
      return (
        db
          .prepare("SELECT DISTINCT sandbox_id AS id FROM action_job_items WHERE state = 'confirmed'")
          .all() as {
          id: string;
        }[]
      ).map((row) => row.id);
    } finally {
      db.close();
    }
  }

  // The longest run so far, spawn to exit (a first guess until one has run).
  let longestRunMs = 500;
  const delayOf = (trigger: Trigger | null) =>
    trigger?.on === "delay" ? Math.max(1, Math.round(trigger.share * longestRunMs)) : 0;

  function runChild(planId: string, trigger: Trigger | null): Promise<ChildRun> {
    const started = Date.now();
    const child: ChildProcess = spawn(
      process.execPath,
      [bundle, world.configFile, planId, JSON.stringify(CHILD_OPTIONS)],
      {
        env: { ...process.env, ...world.env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const run: ChildRun = { ms: 0, lines: [], killed: false, exitCode: null, stderr: "" };
    const kill = () => {
      if (run.killed || child.exitCode !== null) return;
      run.killed = true;
      child.kill("SIGKILL");
    };
    let timer: NodeJS.Timeout | undefined;
    if (trigger?.on === "request" || trigger?.on === "answer") proxy.arm(trigger, kill);
    if (trigger?.on === "delay") timer = setTimeout(kill, delayOf(trigger));
    child.stderr?.on("data", (chunk: Buffer) => {
      run.stderr += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      run.lines.push(line);
      if (trigger?.on === "line" && run.lines.length === trigger.n) kill();
    });
    return new Promise((resolve) => {
      child.on("exit", (code) => {
        clearTimeout(timer);
        proxy.disarm();
        run.exitCode = code;
        run.ms = Date.now() - started;
        longestRunMs = Math.max(longestRunMs, run.ms);
        // Lines already read are all we need; the stream may still be draining.
        setImmediate(() => resolve(run));
      });
    });
  }

  it(
    "shows every killed job interrupted, resumes it to the end, never repeats a confirmed item, and keeps the store intact",
    async () => {
      const random = seededRandom(SEED);
      const targets = world.byRole("target").map((entry) => entry.leaseId as string);
      const planIds: string[] = [];
      const deletesWhenConfirmed = new Map<string, number>();
      const killedJobs = new Set<string>();
      const shownInterrupted = new Set<string>();
      const triggers: Record<string, number> = {};
      const log: string[] = [];
      let kills = 0;
      let restarts = 0;
      let integrityChecks = 0;

      const newPlan = async () => {
        const leaseIds = targets.splice(0, PLAN_SIZE);
        expect(leaseIds.length, "the world ran out of targets before the kills were done").toBe(PLAN_SIZE);
        const { plan } = await engine.plan({ action: "destroy", selection: { kind: "leases", leaseIds } });
        expect(plan.counts.do).toBe(PLAN_SIZE);
        planIds.push(plan.planId);
        return plan.planId;
      };
      const note = (run: ChildRun) => {
        for (const line of run.lines) {
          const interrupted = /^interrupted (\S+)$/.exec(line);
          if (interrupted) shownInterrupted.add(interrupted[1] as string);
        }
        const started = run.lines.map((line) => /^job (\S+)$/.exec(line)?.[1]).filter(Boolean);
        const finished = run.lines.some((line) => line.startsWith("done "));
        if (run.killed && !finished) for (const jobId of started) killedJobs.add(jobId as string);
        if (!run.killed && run.exitCode !== 0)
          throw new Error(`the job process failed (${run.exitCode}):\n${run.stderr}`);
        return run.lines.includes("finished") || run.lines.includes("done completed");
      };

      let planId = await newPlan();
      while (kills < KILLS) {
        const trigger = pickTrigger(random);
        const delayMs = delayOf(trigger);
        const run = await runChild(planId, trigger);
        restarts += 1;
        const done = note(run);
        log.push(
          `${run.killed ? `kill ${kills + 1}` : "no kill"} ${describeTrigger(trigger, delayMs)} (${run.ms} ms): ${run.lines.join(" | ")}`,
        );
        if (run.killed) {
          kills += 1;
          triggers[trigger.on] = (triggers[trigger.on] ?? 0) + 1;
          const check = integrity();
          integrityChecks += 1;
          expect(check.ok, `integrity after kill ${kills}`).toBe("ok");
          expect(check.foreignKeys, `foreign keys after kill ${kills}`).toEqual([]);
          const stats = world.sim.stats();
          for (const sandboxId of confirmedInJournal()) {
            if (!deletesWhenConfirmed.has(sandboxId))
              deletesWhenConfirmed.set(sandboxId, deletesOf(stats, sandboxId));
          }
        }
        if (done) planId = await newPlan();
      }
      // No more kills: every plan is run to its end by one more restart (or two, if a job was left between).
      for (const id of planIds) {
        for (let attempt = 0; attempt < 3; attempt++) {
          const run = await runChild(id, null);
          restarts += 1;
          if (note(run)) break;
        }
      }

      const check = integrity();
      expect(check.ok).toBe("ok");
      expect(killedJobs.size).toBeGreaterThan(0);
      // Each kind of kill point is a claim of the suite; one that never killed the process proved nothing.
      for (const point of KILL_POINTS)
        expect(triggers[point] ?? 0, `kills at the ${point} kill point\n${log.join("\n")}`).toBeGreaterThan(
          0,
        );
      for (const jobId of killedJobs)
        expect(shownInterrupted.has(jobId), `job ${jobId} shown interrupted after its kill`).toBe(true);

      const stats = world.sim.stats();
      const audit: AuditEntry[] = (await engine.queryAudit({ limit: 10_000 })).entries;
      const allJobs: Job[] = (await engine.listJobs({ limit: 1_000 })).jobs;
      const db = new BetterSqlite3(databaseFile(), { readonly: true });
      const resumedBy = new Map(
        (
          db.prepare("SELECT job_id AS id, resumed_by_job_id AS next FROM action_jobs").all() as {
            id: string;
            next: string | null;
          }[]
        ).map((row) => [row.id, row.next]),
      );
      db.close();

      let items = 0;
      let itemsLost = 0;
      const planned = new Set<string>();
      for (const id of planIds) {
        const jobs = allJobs.filter((job) => job.planId === id).reverse();
        expect(jobs.length, `jobs of plan ${id}`).toBeGreaterThan(0);
        for (const job of jobs) {
          // Every job ended, or was cut off and then continued by another job.
          const settled =
            job.state === "completed" || (job.state === "interrupted" && resumedBy.get(job.jobId) != null);
          expect(settled, `job ${job.jobId} ended ${job.state}`).toBe(true);
        }
        const final = new Map<string, Job["items"][number]>();
        for (const job of jobs) for (const item of job.items) final.set(item.itemId, item);
        // Counted before it is asserted, so the figure is what was found, not what was hoped.
        itemsLost += PLAN_SIZE - [...final.values()].filter((item) => item.state === "confirmed").length;
        expect(final.size).toBe(PLAN_SIZE);
        for (const item of final.values()) {
          items += 1;
          planned.add(item.sandboxId as string);
          expect(
            item.state,
            `${item.sandboxId} (${item.reason ?? ""}: ${item.message ?? ""})\n${log.join("\n")}`,
          ).toBe("confirmed");
        }
        // The audit log has one row per ended item of each job, and one confirmation per sandbox.
        for (const job of jobs) {
          for (const item of job.items.filter(
            (candidate) => !["pending", "running"].includes(candidate.state),
          )) {
            const rows = audit.filter(
              (entry) => entry.kind === "item" && entry.jobId === job.jobId && entry.itemId === item.itemId,
            );
            expect(
              rows.map((row) => row.outcome),
              `audit of ${item.sandboxId} in ${job.jobId}`,
            ).toEqual([item.state]);
          }
        }
      }
      for (const sandboxId of planned) {
        const confirmations = audit.filter(
          (entry) => entry.kind === "item" && entry.sandboxId === sandboxId && entry.outcome === "confirmed",
        );
        expect(confirmations, `confirmed audit rows of ${sandboxId}`).toHaveLength(1);
      }

      // What CreateOS saw: one DELETE per planned sandbox at most, none after its confirmation, none elsewhere.
      let deletes = 0;
      let repeated = 0;
      for (const entry of world.entries) {
        const count = deletesOf(stats, entry.sandboxId);
        deletes += count;
        if (planned.has(entry.sandboxId)) {
          expect(count, `DELETEs of ${entry.sandboxId}`).toBeLessThanOrEqual(1);
          expect(world.statuses().get(entry.sandboxId)).toBe("destroyed");
        } else {
          expect(
            mutatingRequests(stats, entry.sandboxId),
            `writes to ${entry.sandboxId}, outside every plan`,
          ).toBe(0);
        }
        const atConfirmation = deletesWhenConfirmed.get(entry.sandboxId);
        if (atConfirmation !== undefined && count !== atConfirmation) repeated += 1;
      }
      expect(repeated, "sandboxes sent a DELETE after the journal had confirmed them").toBe(0);

      writeFigures("crash", {
        seed: SEED,
        crashesSurvived: kills,
        triggers,
        restarts,
        plans: planIds.length,
        items,
        itemsLost,
        deletes,
        confirmedItemsRepeated: repeated,
        integrityChecks: integrityChecks + 1,
        kills: log,
      });
    },
    sized(150_000, 900_000),
  );
});
