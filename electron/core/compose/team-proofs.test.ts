import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARKER_PATH } from "../../../shared/domain/marker-proof.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { CONFIG_FILE_NAME } from "../config/load.js";
import { createPaperclipSchema, PaperclipSeed } from "../leases/testing/paperclip-db/seed.js";
import { marker } from "../markers/testing/marker-world.js";

// With a team store, `prove` and `repair` keep what they learn where the team reads it: a proof made on
// one machine is shown by another machine's scan, and a repair's audit entry is in the team's log.

const postgres = postgresForSuite();
let sim: Simulator;
let cleanups: (() => Promise<void>)[] = [];
const SANDBOXES = ["sb-proved", "sb-repaired"] as const;
const markerOf = (sandbox: (typeof SANDBOXES)[number]) => marker(SANDBOXES.indexOf(sandbox) + 41);
const leases = {} as Record<(typeof SANDBOXES)[number], string>;
let env: NodeJS.ProcessEnv;
let storeUrl: string;

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  sim = await startSimulator({
    fleet: {
      accounts: [
        {
          apiKey: SECRET_KEY,
          sandboxes: SANDBOXES.map((id) => ({
            id,
            status: "running" as const,
            shape: "s-1vcpu-1gb",
            files: { [MARKER_PATH]: markerOf(id) },
          })),
        },
      ],
    },
    rateLimitPerMinute: 0,
  });
  const paperclip = await postgres().createDatabase("paperclip");
  const team = await postgres().createDatabase("team");
  storeUrl = team.url;
  const password = randomBytes(12).toString("hex");
  await withClient(paperclip.url, async (client) => {
    await createPaperclipSchema(client, "company-scoped");
    const seed = new PaperclipSeed(client, "company-scoped");
    const company = await seed.company("Acme Robotics");
    const environmentId = await seed.environment({
      companyId: company,
      name: "CreateOS sandboxes",
      config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" },
    });
    for (const sandbox of SANDBOXES) {
      leases[sandbox] = await seed.lease({
        companyId: company,
        environmentId,
        status: "released",
        providerLeaseId: sandbox,
        metadata: { marker: markerOf(sandbox) },
      });
    }
    const role = `repairer_${paperclip.name}`;
    await client.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await client.query(`GRANT SELECT, UPDATE ON environment_leases TO ${role}`);
    env = {
      LK_KEY: SECRET_KEY,
      PC_DB: paperclip.url,
      PC_DB_WRITE: paperclip.urlFor(role, password),
      LEASEKEEPER_STORE_URL: team.url,
    };
  });
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
  await sim?.stop();
});

/** One operator's machine: a data directory of its own, the team's store in its config. */
async function machine(): Promise<string> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  await writeJson(path.join(dir, CONFIG_FILE_NAME), {
    sources: [{ kind: "paperclip-db", name: "paperclip", urlEnv: "PC_DB", writeUrlEnv: "PC_DB_WRITE" }],
    credentials: [{ name: "account", origin: sim.url, apiKeyEnv: "LK_KEY" }],
    dataDir: "data",
    store: { kind: "postgres", urlEnv: "LEASEKEEPER_STORE_URL" },
  });
  return dir;
}

describe("prove and repair with a team store", () => {
  it("a proof made on one machine is in the team store, and another machine's scan shows it", async () => {
    const first = await machine();
    const proved = await runCliCaptured(["prove", "--lease", leases["sb-proved"]], { env, dir: first });
    expect(proved.stderr).toBe("");
    expect(proved.code).toBe(0);

    const second = await machine();
    const scanned = await runCliCaptured(["scan", "--json"], { env, dir: second });
    expect(scanned.code).toBe(0);
    const report = JSON.parse(scanned.stdout) as {
      leases: { leaseId: string; markerProof?: { answer: string; markerPrefix: string | null } }[];
    };
    const row = report.leases.find((entry) => entry.leaseId === leases["sb-proved"]);
    expect(row?.markerProof, "the second machine does not see the first machine's proof").toMatchObject({
      answer: "proven",
      markerPrefix: markerOf("sb-proved").slice(0, 8),
    });
    expect(scanned.stdout).not.toContain(markerOf("sb-proved"));
  }, 60_000);

  it("`repair --apply` writes its audit entry to the team's log", async () => {
    const first = await machine();
    const lease = leases["sb-repaired"];
    const applied = await runCliCaptured(["repair", "--lease", lease, "--apply"], { env, dir: first });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);

    const rows = await withClient(
      storeUrl,
      async (client) =>
        (
          await client.query<{ lease_id: string; outcome: string }>(
            "SELECT lease_id, outcome FROM leasekeeper.action_audit WHERE action = 'repair'",
          )
        ).rows,
    );
    expect(rows).toEqual([{ lease_id: lease, outcome: "repaired" }]);

    const second = await machine();
    const audit = await runCliCaptured(["audit", "--json", "--action", "repair"], { env, dir: second });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain(lease);
  }, 60_000);
});
