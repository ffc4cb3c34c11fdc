// Benchmark: Paperclip's database source reading every row vs only the rows changed since its last
// snapshot, in this process, against an embedded PostgreSQL seeded as `inventory --source paperclip-db`
// seeds it (bench/inventory-sources.ts), every stamp an hour back, then 1% of the rows changed.
//   npx tsx bench/database-changed-rows.ts [--size 100000] [--changed 0.01] [--runs 5]
import { readFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { changedSinceFrom } from "../electron/core/leases/changed-rows.js";
import { type PaperclipDbSnapshot, PaperclipDbSource } from "../electron/core/leases/paperclip-db.js";
import { parseEnvironments, parseLeaseRows } from "../electron/core/leases/rows.js";
import { generateDemoWorld } from "../simulator/index.js";
import { startPostgres } from "../test/support/postgres.js";
import { seedDatabase } from "./inventory-sources.js";

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "100000" },
    changed: { type: "string", default: "0.01" },
    runs: { type: "string", default: "5" },
  },
});
const size = Number(values.size);
const share = Number(values.changed);
const runs = Math.max(1, Number(values.runs));

interface Measured {
  wallMs: number;
  cpuMs: number;
  /** CPU time of the database server's backends serving the source (Linux /proc, 10 ms ticks). */
  serverCpuMs: number;
  snapshot: PaperclipDbSnapshot;
}

/** utime + stime (ms) of each backend of the source's pool, by pid. */
async function backendCpu(admin: pg.Client): Promise<Map<number, number>> {
  const backends = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = 'leasekeeper'",
  );
  const cpu = new Map<number, number>();
  for (const { pid } of backends.rows) {
    const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
    cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return cpu;
}

async function measure(admin: pg.Client, read: () => Promise<PaperclipDbSnapshot>): Promise<Measured> {
  const before = await backendCpu(admin);
  const cpu = process.cpuUsage();
  const at = performance.now();
  const snapshot = await read();
  const wallMs = performance.now() - at;
  const used = process.cpuUsage(cpu);
  let serverCpuMs = 0;
  for (const [pid, ms] of await backendCpu(admin)) serverCpuMs += ms - (before.get(pid) ?? 0);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, serverCpuMs, snapshot };
}

const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const postgres = await startPostgres();
try {
  const world = generateDemoWorld({ size, seed: "leasekeeper-bench", environments: 50, accounts: 5 });
  const environments = parseEnvironments(world.ledger.environments, "bench", "environments").rows;
  const leases = parseLeaseRows(world.ledger.leases, "bench", "leases").rows;
  const environmentIds = new Set(environments.map((environment) => environment.id));
  const companyIds = [...new Set(leases.map((lease) => lease.companyId))];
  const db = await postgres.createDatabase("paperclip");
  await seedDatabase(db.url, environments, leases, environmentIds, companyIds);
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  for (const table of ["environment_leases", "heartbeat_runs"])
    await admin.query(`UPDATE ${table} SET updated_at = now() - interval '1 hour'`);
  await admin.query("VACUUM ANALYZE");

  const source = new PaperclipDbSource({ id: "paperclip-db", url: db.url, timeoutMs: 120_000 });
  try {
    // One read to warm the server's cache and this process's code, then the measured ones.
    let last = (await measure(admin, () => source.load())).snapshot;
    const full: Measured[] = [];
    for (let run = 0; run < runs; run++) {
      const measured = await measure(admin, () => source.load());
      full.push(measured);
      last = measured.snapshot;
    }
    const changed: Measured[] = [];
    const total = last.leases.length;
    let same = true;
    for (let run = 0; run < runs; run++) {
      // The last run's stamps would fall inside this read's overlap: aged out (as two minutes would),
      // then a full read (not measured) is the previous snapshot.
      await admin.query(
        `UPDATE environment_leases SET updated_at = updated_at - interval '1 hour'
          WHERE updated_at > now() - interval '10 minutes'`,
      );
      const previous = await source.load();
      // A fresh 1% of the rows, as Paperclip stamps them: last use and updated_at.
      await admin.query(
        `UPDATE environment_leases SET last_used_at = now(), updated_at = now()
          WHERE id IN (SELECT id FROM environment_leases ORDER BY random() LIMIT $1)`,
        [Math.round(total * share)],
      );
      const measured = await measure(admin, () =>
        source.load({ changedSince: changedSinceFrom(previous, false) }),
      );
      changed.push(measured);
      const check = await source.load();
      same &&= JSON.stringify(check.leases) === JSON.stringify(measured.snapshot.leases);
    }
    const report = {
      size,
      rows: total,
      changedShare: share,
      runs,
      full: {
        wallMs: Math.round(median(full.map((m) => m.wallMs))),
        cpuMs: Math.round(median(full.map((m) => m.cpuMs))),
        serverCpuMs: Math.round(median(full.map((m) => m.serverCpuMs))),
        changedRows: full[0]!.snapshot.readUpTo?.changedRows,
      },
      changed: {
        wallMs: Math.round(median(changed.map((m) => m.wallMs))),
        cpuMs: Math.round(median(changed.map((m) => m.cpuMs))),
        serverCpuMs: Math.round(median(changed.map((m) => m.serverCpuMs))),
        changedRows: changed.map((m) => m.snapshot.readUpTo?.changedRows),
        fullPass: changed.map((m) => m.snapshot.readUpTo?.fullPass),
      },
      fullWallMs: full.map((m) => Math.round(m.wallMs)),
      changedWallMs: changed.map((m) => Math.round(m.wallMs)),
      fullCpuMs: full.map((m) => Math.round(m.cpuMs)),
      changedCpuMs: changed.map((m) => Math.round(m.cpuMs)),
      mergedEqualsFullRead: same,
      loadAverage: loadavg()[0],
      cores: availableParallelism(),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await source.close();
    await admin.end();
  }
} finally {
  await postgres.stop();
}
