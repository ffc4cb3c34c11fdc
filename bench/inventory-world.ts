// Writes a benchmark world into a folder, in a process of its own so the harness never holds it: the
// ledger one row a line through a stream, or Paperclip's database seeded a chunk at a time, the fleet of
// the sandboxes CreateOS lists, and the config. A long-lived world (`--live-rows`) makes its history a
// chunk at a time (simulator/demo/long-lived.ts), so a million rows never sit in memory together.
//   tsx bench/inventory-world.ts --dir D --size N [--live-rows L] --api-url U --legacy-api-url V
//     [--source ledger|paperclip-db] [--budget 6000] [--seed S] [--environments 50] [--accounts 5]
// The database's connection string comes in LEASEKEEPER_BENCH_PAPERCLIP_DATABASE_URL. Prints one JSON line.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { parseEnvironments, parseLeaseRows } from "../electron/core/leases/rows.js";
import { createPaperclipSchema, PaperclipSeed } from "../electron/core/leases/testing/paperclip-db/seed.js";
import type { LeaseRow } from "../shared/domain/paperclip.js";
import { type FleetSandbox, generateDemoWorld, type LedgerLease } from "../simulator/index.js";
import { peakRssMB } from "./lib/probes.js";
import {
  CONFIG_FILE,
  DATABASE_URL_ENV,
  FLEET_FILE,
  LEDGER_FILE,
  type WorldWriterResult,
} from "./lib/world-files.js";

const LIST_PAGE_SIZE = 500;
const LIVE_RUN_STATUS = "running";

const { values } = parseArgs({
  options: {
    dir: { type: "string" },
    size: { type: "string" },
    "live-rows": { type: "string" },
    "api-url": { type: "string" },
    "legacy-api-url": { type: "string" },
    source: { type: "string", default: "ledger" },
    budget: { type: "string", default: "6000" },
    seed: { type: "string", default: "leasekeeper-bench" },
    environments: { type: "string", default: "50" },
    accounts: { type: "string", default: "5" },
  },
});

const started = performance.now();
const dir = values.dir!;
const size = Number(values.size);
const liveRows = values["live-rows"] === undefined ? undefined : Number(values["live-rows"]);
const world = generateDemoWorld({
  size,
  seed: values.seed!,
  environments: Number(values.environments),
  accounts: Number(values.accounts),
  apiUrl: values["api-url"]!,
  legacyApiUrl: values["legacy-api-url"]!,
  ...(liveRows === undefined ? {} : { liveRows }),
});
const sandboxesByKey = new Map<string, FleetSandbox[]>(
  world.fleet.accounts.map((account) => [account.apiKey, [...(account.sandboxes ?? [])]]),
);
let listedFromHistory = 0;
/** The live rows (one chunk), then each history chunk, with the sandboxes it brings added to the fleet. */
function* leaseChunks(): Generator<LedgerLease[]> {
  yield world.ledger.leases;
  for (const chunk of world.historyStream?.chunks() ?? []) {
    for (const { apiKey, sandboxes } of chunk.sandboxes) {
      sandboxesByKey.get(apiKey)?.push(...sandboxes);
      listedFromHistory += sandboxes.length;
    }
    yield chunk.leases;
  }
}

let rows = 0;
let ledgerBytes: number | null = null;
let database: WorldWriterResult["database"] = null;
if (values.source === "paperclip-db") {
  database = await seedDatabase(process.env[DATABASE_URL_ENV]!);
  rows = database.leases;
} else {
  ledgerBytes = await writeLedger(path.join(dir, LEDGER_FILE));
}

const fleet = {
  ...world.fleet,
  accounts: world.fleet.accounts.map((account) => ({
    ...account,
    // Sorted by id is sorted by creation (ULIDs), as the generator lists them.
    sandboxes: (sandboxesByKey.get(account.apiKey) ?? []).sort((x, y) => (x.id < y.id ? -1 : 1)),
  })),
};
await writeFile(path.join(dir, FLEET_FILE), JSON.stringify(fleet));
const sources =
  values.source === "paperclip-db"
    ? [{ kind: "paperclip-db", urlEnv: DATABASE_URL_ENV }]
    : [{ kind: "ledger", path: LEDGER_FILE }];
await writeFile(
  path.join(dir, CONFIG_FILE),
  JSON.stringify({ ...world.config, sources, rateLimitPerMinute: Number(values.budget) }),
);

const listed = new Map(fleet.accounts.map((account) => [account.apiKey, account.sandboxes.length]));
const requestFloorByOrigin: Record<string, number> = {};
for (const credential of world.config.credentials) {
  const count = listed.get(world.keys[credential.apiKeyEnv]!) ?? 0;
  requestFloorByOrigin[credential.origin] =
    (requestFloorByOrigin[credential.origin] ?? 0) + Math.max(1, Math.ceil(count / LIST_PAGE_SIZE));
}
const result: WorldWriterResult = {
  rows,
  liveRows: world.ledger.leases.length,
  historyRows: world.historyStream?.rows ?? 0,
  listedSandboxes: [...listed.values()].reduce((sum, n) => sum + n, 0),
  listedFromHistory,
  ledgerBytes,
  database,
  keys: world.keys,
  credentials: world.config.credentials.length,
  requestFloor: Object.values(requestFloorByOrigin).reduce((sum, n) => sum + n, 0),
  requestFloorByOrigin,
  generateAndWriteMs: Math.round(performance.now() - started),
  peakRssMB: Math.round(peakRssMB()),
};
process.stdout.write(`${JSON.stringify(result)}\n`);

/** `{ "companies": […], "environments": […], "leases": [` then one row a line, then `]}`. */
async function writeLedger(file: string): Promise<number> {
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, "drain");
  };
  const head = JSON.stringify({ companies: world.ledger.companies, environments: world.ledger.environments });
  await write(`${head.slice(0, -1)},"leases":[\n`);
  for (const chunk of leaseChunks()) {
    const lines: string[] = [];
    for (const lease of chunk)
      lines.push(`${rows === 0 && lines.length === 0 ? "" : ",\n"}${JSON.stringify(lease)}`);
    rows += chunk.length;
    await write(lines.join(""));
  }
  await write("\n]}\n");
  out.end();
  await once(out, "finish");
  return bytes;
}

/**
 * Paperclip's current (instance-scoped) tables, as bench/inventory-sources.ts seeds them, a chunk at a
 * time: companies, environments, then per chunk the runs behind its rows (live for active rows, finished
 * for the rest) and the rows themselves, as the row parser reads them (malformed planted rows left out).
 */
async function seedDatabase(url: string): Promise<{ leases: number; runs: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    for (const company of world.ledger.companies ?? []) await seed.company(company.name, company.id);
    const environments = parseEnvironments(world.ledger.environments, "bench", "environments").rows;
    const environmentIds = new Set(environments.map((environment) => environment.id));
    const names = new Set<string>();
    for (const environment of environments) {
      const name = names.has(environment.name)
        ? `${environment.name} (${environment.id.slice(0, 8)})`
        : environment.name;
      names.add(name);
      await seed.environment({
        id: environment.id,
        name,
        driver: environment.driver,
        status: environment.status,
        config: environment.config,
      });
    }
    let leases = 0;
    let runs = 0;
    // History rows and their runs have fresh ids: only within the live chunk can an id repeat.
    for (const chunk of leaseChunks()) {
      const seen = new Set<string>();
      const parsed = parseLeaseRows(chunk, "bench", "leases").rows.filter((lease) => {
        if (seen.has(lease.id)) return false;
        seen.add(lease.id);
        return true;
      });
      rows += chunk.length;
      const runStatus = new Map<string, { status: string; companyId: string }>();
      for (const lease of parsed) {
        if (lease.heartbeatRunId === null) continue;
        const known = runStatus.get(lease.heartbeatRunId);
        if (known === undefined || lease.status === "active")
          runStatus.set(lease.heartbeatRunId, {
            status: lease.status === "active" ? LIVE_RUN_STATUS : "succeeded",
            companyId: known?.companyId ?? lease.companyId,
          });
      }
      if (runStatus.size > 0) {
        await client.query(
          `INSERT INTO heartbeat_runs (id, company_id, agent_id, status)
             SELECT id, company_id, agent_id, status
               FROM json_populate_recordset(null::heartbeat_runs, $1::json)`,
          [
            JSON.stringify(
              [...runStatus].map(([id, run]) => ({
                id,
                company_id: run.companyId,
                agent_id: randomUUID(),
                status: run.status,
              })),
            ),
          ],
        );
      }
      runs += runStatus.size;
      await seed.leases(parsed.map((lease) => leaseSeed(lease, environmentIds)));
      leases += parsed.length;
    }
    await ageStamps(client);
    await client.query("ANALYZE");
    return { leases, runs };
  } finally {
    await client.end();
  }
}

/**
 * A long-lived instance was not written a minute ago: the stamps the seed left at now() (every run, the
 * catalog) are moved back an hour, as is every lease row's, but never before its own last use. Without
 * it every row would lie inside the read of changed rows' overlap (CHANGED_ROWS_OVERLAP_MS) at the
 * rescan, which would then measure a full read.
 */
async function ageStamps(client: pg.Client): Promise<void> {
  const stamped = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_name = 'updated_at'`,
  );
  for (const { table_name: table } of stamped.rows) {
    const floor =
      table === "environment_leases"
        ? "GREATEST(last_used_at, now() - interval '1 hour')"
        : "now() - interval '1 hour'";
    await client.query(
      `UPDATE ${pg.escapeIdentifier(table)} SET updated_at = ${floor} WHERE updated_at > now() - interval '10 minutes'`,
    );
  }
}

function leaseSeed(lease: LeaseRow, environmentIds: ReadonlySet<string>) {
  return {
    id: lease.id,
    companyId: lease.companyId,
    // A row naming an environment that is not there is what ON DELETE SET NULL leaves: an orphan.
    environmentId:
      lease.environmentId !== null && environmentIds.has(lease.environmentId) ? lease.environmentId : null,
    heartbeatRunId: lease.heartbeatRunId,
    status: lease.status,
    leasePolicy: lease.leasePolicy,
    provider: lease.provider,
    providerLeaseId: lease.providerLeaseId,
    acquiredAt: lease.acquiredAt,
    lastUsedAt: lease.lastUsedAt,
    releasedAt: lease.releasedAt,
    failureReason: lease.failureReason,
    cleanupStatus: lease.cleanupStatus,
    metadata: lease.metadata,
  };
}
