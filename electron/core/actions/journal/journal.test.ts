import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Plan, PlanItem } from "../../../../shared/domain/actions.js";
import { type PostgresServer, startPostgres } from "../../../../test/support/postgres.js";
import { openDatabase } from "../../store/database.js";
import { openPostgresStore, type PostgresStore } from "../../store/postgres/store.js";
import type { FrozenItem } from "../plan/build-plan.js";
import type { JobJournal, JobRow, JournalItem } from "./journal.js";
import { SqliteJournal } from "./sqlite-journal.js";

// The journal contract on both stores, each through several connections as separate processes hold
// them: a plan reads back as saved, a plan runs once however many race to run it, an interrupted job is
// resumed by one job however many race to resume it, a job that ended is never swept back to
// interrupted, and jobs list newest first with their items. SQLite on a real file, PostgreSQL on a real
// embedded server.

const T0 = "2026-12-01T10:00:00.000Z";
const RACERS = 6;

interface JournalStore {
  fresh(): Promise<void>;
  /** Another connection to the same store, as another process would open. */
  connection(): Promise<JobJournal>;
  cleanUp(): Promise<void>;
}

function sqliteStore(): JournalStore {
  let dir = "";
  const opened: { close(): void }[] = [];
  return {
    async fresh() {
      dir = mkdtempSync(path.join(tmpdir(), "lk-journal-"));
    },
    async connection() {
      const db = openDatabase(dir);
      opened.push(db);
      return new SqliteJournal(db);
    },
    async cleanUp() {
      for (const db of opened.splice(0)) db.close();
      if (dir !== "") rmSync(dir, { recursive: true, force: true });
    },
  };
}

let server: PostgresServer | undefined;
function postgresStore(): JournalStore {
  let url = "";
  const opened: PostgresStore[] = [];
  return {
    async fresh() {
      server ??= await startPostgres();
      url = (await server.createDatabase("journal")).url;
    },
    async connection() {
      const store = await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL" });
      opened.push(store);
      return store.journal;
    },
    async cleanUp() {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    },
  };
}

afterAll(async () => {
  await server?.stop();
}, 60_000);

function planItem(n: number): PlanItem {
  return {
    itemId: `item-${n}`,
    leaseId: `lease-${n}`,
    sourceId: "ledger",
    sandboxId: `sb-${n}`,
    origin: "http://127.0.0.1:9",
    credential: "default",
    effect: "delete",
    decision: "do",
  } as unknown as PlanItem;
}

function plan(planId: string, size: number): Plan {
  return {
    planId,
    action: "destroy",
    createdAt: T0,
    expiresAt: "2026-12-01T10:15:00.000Z",
    operator: "ada",
    items: Array.from({ length: size }, (_, n) => planItem(n)),
  } as unknown as Plan;
}

function jobRow(jobId: string, planId: string, overrides: Partial<JobRow> = {}): JobRow {
  return {
    jobId,
    planId,
    action: "destroy",
    state: "running",
    createdAt: T0,
    finishedAt: null,
    parentJobId: null,
    resumedByJobId: null,
    override: false,
    operator: "ada",
    ownerHost: "host-a",
    ownerPid: 1,
    ownerInstance: "engine-a",
    heartbeatAt: T0,
    ...overrides,
  };
}

function journalItems(size: number): JournalItem[] {
  return Array.from({ length: size }, (_, n) => ({
    seq: n,
    itemId: `item-${n}`,
    leaseId: `lease-${n}`,
    sandboxId: `sb-${n}`,
    origin: "http://127.0.0.1:9",
    effect: "delete",
    state: "pending",
    reason: null,
    message: null,
    httpStatus: null,
    startedAt: null,
    finishedAt: null,
    recheck: false,
    sentAt: null,
    confirmedBy: n === 0 ? "typed-id" : "click",
  }));
}

async function savePlan(journal: JobJournal, planId: string, size = 3): Promise<void> {
  const made = plan(planId, size);
  const frozen = made.items.map((item) => ({ itemId: item.itemId, evidence: { n: item.itemId } }));
  await journal.savePlan({
    plan: made,
    request: { action: "destroy", selection: { kind: "leases", leaseIds: ["lease-0"] } } as never,
    frozen: frozen as unknown as FrozenItem[],
    host: "host-a",
    accounts: [{ origin: "http://127.0.0.1:9", credential: "default", accountId: "user-1" }],
    audit: [],
  });
}

describe.each([
  ["SQLite", sqliteStore()],
  ["PostgreSQL", postgresStore()],
])("the job journal in the %s store", (_name, store) => {
  afterEach(() => store.cleanUp());

  it("reads a plan back from another connection as it was saved, its planned accounts with it", async () => {
    await store.fresh();
    const planner = await store.connection();
    const other = await store.connection();
    await savePlan(planner, "plan-1");
    const loaded = await other.loadPlan("plan-1");
    expect(loaded?.plan).toEqual(plan("plan-1", 3));
    expect(loaded?.frozen.get("item-2")).toEqual({ itemId: "item-2", evidence: { n: "item-2" } });
    expect(await other.plannedAccount("plan-1", "http://127.0.0.1:9", "default")).toBe("user-1");
    expect(await other.loadPlan("plan-none")).toBeNull();
  }, 120_000);

  it("runs a plan once however many connections race to run it, and writes nothing for the others", async () => {
    await store.fresh();
    const connections = await Promise.all(Array.from({ length: RACERS }, () => store.connection()));
    await savePlan(connections[0]!, "plan-1");
    const results = await Promise.all(
      connections.map((journal, n) =>
        journal.createJob({
          job: jobRow(`job-${n}`, "plan-1"),
          items: journalItems(3),
          audit: [],
          consumesPlan: true,
          resumes: null,
        }),
      ),
    );
    const won = results.flatMap((result, n) => (result.ok ? [`job-${n}`] : []));
    expect(won).toHaveLength(1);
    for (const result of results)
      if (!result.ok) expect(result).toEqual({ ok: false, reason: "plan-consumed", ranBy: won[0] });
    const jobs = await connections[1]!.recentJobs(100);
    expect(jobs.map((job) => job.jobId)).toEqual(won);
    expect(jobs[0]!.items).toHaveLength(3);
  }, 120_000);

  it("decides a cancel and runs racing for one plan one way: either it ran once or it never runs", async () => {
    await store.fresh();
    const connections = await Promise.all(Array.from({ length: RACERS }, () => store.connection()));
    await savePlan(connections[0]!, "plan-1");
    const [cancel, ...runs] = await Promise.all([
      connections[0]!.cancelPlan({ planId: "plan-1", at: T0, operator: "ada", audit: [] }),
      ...connections.slice(1).map((journal, n) =>
        journal.createJob({
          job: jobRow(`job-${n}`, "plan-1"),
          items: journalItems(1),
          audit: [],
          consumesPlan: true,
          resumes: null,
        }),
      ),
    ]);
    const won = runs.filter((run) => run.ok);
    if (cancel!.ok) {
      expect(won).toHaveLength(0);
      for (const run of runs)
        expect(run).toEqual({
          ok: false,
          reason: "plan-cancelled",
          cancellation: { cancelledAt: T0, operator: "ada" },
        });
    } else {
      expect(won).toHaveLength(1);
      expect(cancel).toEqual({ ok: false, ranBy: (await connections[1]!.recentJobs(10))[0]!.jobId });
    }

    // Cancelled once, it stays cancelled as first recorded, and never runs.
    await savePlan(connections[0]!, "plan-2");
    const first = await connections[1]!.cancelPlan({ planId: "plan-2", at: T0, operator: "ada", audit: [] });
    const again = await connections[2]!.cancelPlan({
      planId: "plan-2",
      at: "2026-12-01T11:00:00.000Z",
      operator: "grace",
      audit: [],
    });
    expect(first).toEqual({
      ok: true,
      cancellation: { cancelledAt: T0, operator: "ada" },
      recordedNow: true,
    });
    expect(again).toEqual({
      ok: true,
      cancellation: { cancelledAt: T0, operator: "ada" },
      recordedNow: false,
    });
    const late = await connections[3]!.createJob({
      job: jobRow("job-late", "plan-2"),
      items: journalItems(1),
      audit: [],
      consumesPlan: true,
      resumes: null,
    });
    expect(late).toMatchObject({ ok: false, reason: "plan-cancelled" });
  }, 120_000);

  it("lets one job resume an interrupted job however many race to, and never sweeps an ended job back", async () => {
    await store.fresh();
    const connections = await Promise.all(Array.from({ length: RACERS }, () => store.connection()));
    const [first] = connections as [JobJournal];
    await savePlan(first, "plan-1");
    await first.createJob({
      job: jobRow("job-killed", "plan-1"),
      items: journalItems(3),
      audit: [],
      consumesPlan: true,
      resumes: null,
    });
    await first.markRunning("job-killed", ["item-0"], T0);
    await first.markSending("job-killed", "item-0", T0);

    expect(await first.markInterrupted("job-killed")).toBe(true);
    expect(await connections[1]!.markInterrupted("job-killed"), "already interrupted").toBe(false);
    const results = await Promise.all(
      connections.map((journal, n) =>
        journal.createJob({
          job: jobRow(`job-resume-${n}`, "plan-1", { parentJobId: "job-killed" }),
          items: journalItems(1),
          audit: [],
          consumesPlan: false,
          resumes: "job-killed",
        }),
      ),
    );
    const won = results.flatMap((result, n) => (result.ok ? [`job-resume-${n}`] : []));
    expect(won).toHaveLength(1);
    for (const result of results)
      if (!result.ok) expect(result).toEqual({ ok: false, reason: "already-resumed" });
    expect((await connections[2]!.jobRow("job-killed"))?.resumedByJobId).toBe(won[0]);
    // What the killed job sent is known to every connection.
    const item = (await connections[3]!.items("job-killed"))[0]!;
    expect(item).toMatchObject({ state: "running", sentAt: T0, confirmedBy: "typed-id" });

    // The resume ends; a late sweep that still read it as running must not undo that.
    await connections[4]!.setJobState(won[0]!, "completed", T0);
    expect(await connections[5]!.markInterrupted(won[0]!)).toBe(false);
    const jobs = await first.recentJobs(10);
    expect(jobs.map((job) => job.jobId)).toEqual([won[0], "job-killed"]);
    expect(jobs.map((job) => job.state)).toEqual(["completed", "interrupted"]);
  }, 120_000);
});
