import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuditEntry } from "../../../shared/domain/actions.js";
import { MARKER_PATH } from "../../../shared/domain/marker-proof.js";
import { ownership } from "../../../shared/domain/ownership.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import { type PostgresServer, startPostgres, type TestDatabase } from "../../../test/support/postgres.js";
import { openCliCore } from "../cli/core.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { CONFIG_FILE_NAME } from "../config/load.js";
import { PaperclipDbSource } from "../leases/paperclip-db.js";
import {
  createPaperclipSchema,
  type PaperclipSchemaShape,
  PaperclipSeed,
} from "../leases/testing/paperclip-db/seed.js";
import { marker } from "../markers/testing/marker-world.js";
import { applyRepairs } from "./apply-repair.js";
import { proveAndRepair } from "./repair-service.js";

// A repair written to a real Paperclip database (embedded PostgreSQL, both schema shapes), after every
// sandbox was proven against the CreateOS simulator over real HTTP; the repaired row is re-read through
// the paperclip-db source and judged by the project's own ownership rule.

let server: PostgresServer;
let sim: Simulator;

const SANDBOXES = ["sb-lost", "sb-touched", "sb-applied", "sb-raced"] as const;
const markerOf = (sandbox: (typeof SANDBOXES)[number]) => marker(SANDBOXES.indexOf(sandbox) + 21);

beforeAll(async () => {
  server = await startPostgres();
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
}, 120_000);

afterAll(async () => {
  await sim?.stop();
  await server?.stop();
});

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

interface Paperclip {
  db: TestDatabase;
  writeUrl: string;
  leases: Record<(typeof SANDBOXES)[number], string>;
}

/** A Paperclip whose rows lost their metadata but for the marker; a second role may update leases. */
async function seedPaperclip(shape: PaperclipSchemaShape): Promise<Paperclip> {
  const db = await server.createDatabase(`repair_${shape.replace("-", "_")}`);
  const password = randomBytes(12).toString("hex");
  return withClient(db.url, async (client) => {
    await createPaperclipSchema(client, shape);
    const seed = new PaperclipSeed(client, shape);
    const company = await seed.company("Acme Robotics");
    const environmentId = await seed.environment({
      companyId: company,
      name: "CreateOS sandboxes",
      config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" },
    });
    const leases = {} as Paperclip["leases"];
    for (const sandbox of SANDBOXES) {
      leases[sandbox] = await seed.lease({
        companyId: company,
        environmentId,
        status: "released",
        providerLeaseId: sandbox,
        metadata: { marker: markerOf(sandbox) },
      });
    }
    // Roles belong to the whole server, so each database gets its own.
    const role = `repairer_${db.name}`;
    await client.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await client.query(`GRANT SELECT, UPDATE ON environment_leases TO ${role}`);
    return { db, writeUrl: db.urlFor(role, password), leases };
  });
}

function cliIn(dir: string, env: NodeJS.ProcessEnv, args: string[]) {
  return runCliCaptured(args, { env, dir });
}

async function writeConfig(dir: string, source: Record<string, unknown>) {
  await writeJson(path.join(dir, CONFIG_FILE_NAME), {
    sources: [{ kind: "paperclip-db", name: "paperclip", urlEnv: "PC_DB", ...source }],
    credentials: [{ name: "account", origin: sim.url, apiKeyEnv: "LK_KEY" }],
    dataDir: "data",
  });
}

describe.each<PaperclipSchemaShape>(["company-scoped", "instance-scoped"])(
  "a repair applied to a %s Paperclip database",
  (shape) => {
    let paperclip: Paperclip;
    let source: PaperclipDbSource;
    let dir: string;
    let cleanup: () => Promise<void>;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      paperclip = await seedPaperclip(shape);
      source = new PaperclipDbSource({ id: "paperclip", url: paperclip.db.url, timeoutMs: 10_000 });
      ({ dir, cleanup } = await tempDir());
      env = { LK_KEY: SECRET_KEY, PC_DB: paperclip.db.url, PC_DB_WRITE: paperclip.writeUrl };
      await writeConfig(dir, { writeUrlEnv: "PC_DB_WRITE" });
    }, 60_000);

    afterAll(async () => {
      await source?.close();
      await cleanup?.();
    });

    async function judged(leaseId: string) {
      const row = (await source.readLease(leaseId))!;
      const environment = await source.readEnvironment(row.environmentId!);
      return { row, codes: ownership(row, environment) };
    }

    it("the exported SQL makes the ownership rule accept the row, and leaves a row changed since alone", async () => {
      expect((await judged(paperclip.leases["sb-lost"])).codes).toContain("metadata-missing");
      const exported = await cliIn(dir, env, [
        "repair",
        "--lease",
        paperclip.leases["sb-lost"],
        "--lease",
        paperclip.leases["sb-touched"],
        "--format",
        "sql",
      ]);
      expect(exported.code).toBe(0);

      // Paperclip writes one of the rows after Leasekeeper read it.
      await withClient(paperclip.db.url, (client) =>
        client.query(
          `UPDATE environment_leases SET metadata = $1::jsonb, updated_at = now() + interval '1 second' WHERE id = $2`,
          [
            JSON.stringify({ marker: markerOf("sb-touched"), note: "Paperclip was here" }),
            paperclip.leases["sb-touched"],
          ],
        ),
      );
      const results = await withClient(paperclip.db.url, async (client) => {
        const answer = (await client.query(exported.stdout)) as unknown as pg.QueryResult[];
        return answer.filter((result) => result.command === "UPDATE").map((result) => result.rowCount);
      });
      expect(results).toEqual([1, 0]);

      const repaired = await judged(paperclip.leases["sb-lost"]);
      expect(repaired.codes).toEqual(["owned"]);
      expect(repaired.row.metadata).toMatchObject({ provider: "createos", marker: markerOf("sb-lost") });
      const touched = await judged(paperclip.leases["sb-touched"]);
      expect(touched.row.metadata).toEqual({ marker: markerOf("sb-touched"), note: "Paperclip was here" });
      expect(touched.codes).toContain("metadata-missing");
    });

    it("applies through the write URL only, refuses a row changed between proof and write", async () => {
      const core = await openCliCore(undefined, { ...ioFor(dir), env });
      const repairs = await proveAndRepair(core.markers, [{ leaseId: paperclip.leases["sb-raced"] }], (id) =>
        core.sources.find(id),
      );
      await core.close();
      expect(repairs[0]!.outcome.ok).toBe(true);
      await withClient(paperclip.db.url, (client) =>
        client.query(`UPDATE environment_leases SET updated_at = now() + interval '1 second' WHERE id = $1`, [
          paperclip.leases["sb-raced"],
        ]),
      );
      const result = await applyRepairs(
        repairs.map((repair) => repair.outcome),
        { writeUrl: paperclip.writeUrl, handBack: false, timeoutMs: 10_000 },
      );
      expect(result.applied).toEqual([]);
      expect(result.changed.map((repair) => repair.leaseId)).toEqual([paperclip.leases["sb-raced"]]);
      expect((await judged(paperclip.leases["sb-raced"])).codes).toContain("metadata-missing");
    });

    it("`repair --apply` writes the row in one step, and audits it with the proof's marker prefix only", async () => {
      const lease = paperclip.leases["sb-applied"];
      const applied = await cliIn(dir, env, ["repair", "--lease", lease, "--apply", "--hand-back"]);
      expect(applied.stderr).toBe("");
      expect(applied.code).toBe(0);
      expect(applied.stdout).toBe(`lease ${lease}  repaired\n`);
      const repaired = await judged(lease);
      expect(repaired.codes).toEqual(["owned"]);
      expect(repaired.row.status).toBe("pending_cleanup");

      const audit = await cliIn(dir, env, ["audit", "--json", "--action", "repair"]);
      expect(audit.code).toBe(0);
      const entries = JSON.parse(audit.stdout) as { entries?: AuditEntry[] } | AuditEntry[];
      const list = Array.isArray(entries) ? entries : entries.entries!;
      const entry = list.find((candidate) => candidate.leaseId === lease)!;
      expect(entry).toMatchObject({ action: "repair", outcome: "repaired", sandboxId: "sb-applied" });
      expect(entry.evidence).toMatchObject({
        markerProof: { answer: "proven", markerPrefix: markerOf("sb-applied").slice(0, 8) },
        handBack: true,
      });
      expect(audit.stdout).not.toContain(markerOf("sb-applied"));
      expect(audit.stdout).not.toContain(new URL(paperclip.writeUrl).password);
    });
  },
);

describe("repair --apply without a write URL", () => {
  it("writes nothing and says why; the export alone never writes", async () => {
    const paperclip = await seedPaperclip("company-scoped");
    const { dir, cleanup } = await tempDir();
    const source = new PaperclipDbSource({ id: "paperclip", url: paperclip.db.url, timeoutMs: 10_000 });
    try {
      await writeConfig(dir, {});
      const env = { LK_KEY: SECRET_KEY, PC_DB: paperclip.db.url };
      const lease = paperclip.leases["sb-lost"];
      const refused = await cliIn(dir, env, ["repair", "--lease", lease, "--apply"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("has no writeUrlEnv in the config");
      expect((await cliIn(dir, env, ["repair", "--lease", lease, "--format", "sql"])).code).toBe(0);
      expect((await cliIn(dir, env, ["repair", "--lease", lease, "--apply", "--format", "sql"])).code).toBe(
        2,
      );
      expect((await source.readLease(lease))!.metadata).toEqual({ marker: markerOf("sb-lost") });
    } finally {
      await source.close();
      await cleanup();
    }
  });
});

describe("a repair from the command line", () => {
  it("leaves no connection to Paperclip's database open once the command has answered", async () => {
    const paperclip = await seedPaperclip("instance-scoped");
    const { dir, cleanup } = await tempDir();
    try {
      await writeConfig(dir, {});
      const env = { LK_KEY: SECRET_KEY, PC_DB: paperclip.db.url };
      const lease = paperclip.leases["sb-lost"];
      expect((await cliIn(dir, env, ["repair", "--lease", lease, "--format", "sql"])).code).toBe(0);
      // The pool's idle connections would otherwise stay open for its idle timeout (10 s) and more.
      await vi.waitFor(
        async () => {
          const open = await withClient(paperclip.db.url, (client) =>
            client.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'leasekeeper'",
              [paperclip.db.name],
            ),
          );
          expect(open.rows[0]!.n).toBe(0);
        },
        { timeout: 5_000, interval: 100 },
      );
    } finally {
      await cleanup();
    }
  });
});

function ioFor(dir: string) {
  return { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: dir };
}
