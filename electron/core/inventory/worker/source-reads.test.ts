import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { FULL_PASS_EVERY_SCANS } from "../../leases/changed-rows.js";
import { createPaperclipSchema, PaperclipSeed } from "../../leases/testing/paperclip-db/seed.js";
import { SourceReads } from "./source-reads.js";

// The database source's read of changed rows is SQL: a real embedded PostgreSQL serves it.
const postgres = postgresForSuite();

const configFor = (urlEnv: string) =>
  ({
    requestTimeoutMs: 10_000,
    sources: [{ kind: "paperclip-db", id: "paperclip-db:test", urlEnv, writeUrlEnv: null }],
  }) as unknown as LeasekeeperConfig;

async function seeded(name: string) {
  const db = await postgres().createDatabase(name);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await createPaperclipSchema(client, "instance-scoped");
  const seed = new PaperclipSeed(client, "instance-scoped");
  const company = await seed.company("Acme Robotics");
  const environment = await seed.environment({
    name: "CreateOS sandboxes",
    config: { provider: "createos", apiUrl: "https://api.sb.createos.sh" },
  });
  const leases = await seed.leases(
    Array.from({ length: 40 }, (_, at) => ({
      companyId: company,
      environmentId: environment,
      providerLeaseId: `sbx-${at}`,
      status: "released",
      metadata: { provider: "createos", sandboxId: `sbx-${at}`, companyId: company },
    })),
  );
  // Stamped an hour back, so only what a test changes falls after a read's watermark less the overlap.
  await client.query("UPDATE environment_leases SET updated_at = now() - interval '1 hour'");
  return { url: db.url, client, leases };
}

describe("each source's last read, kept between scans by the inventory worker", () => {
  it("reads only the changed rows of Paperclip's database and hands the others back as the same objects", async () => {
    const { url, client, leases } = await seeded("source_reads_changed");
    try {
      const reads = new SourceReads();
      const config = configFor("PAPERCLIP_DB_URL");
      const env = { PAPERCLIP_DB_URL: url };
      const [first] = await reads.load(config, env);
      expect(first?.readUpTo).toMatchObject({ fullPass: true, changedRows: 40 });

      await client.query(
        "UPDATE environment_leases SET status = 'expired', updated_at = now() WHERE id = $1",
        [leases[3]],
      );
      const [second] = await reads.load(config, env);
      expect(second?.readUpTo).toMatchObject({ fullPass: false, changedRows: 1 });
      const before = new Map(first!.leases.map((row) => [row.id, row]));
      for (const row of second!.leases) {
        if (row.id === leases[3]) expect(row.status).toBe("expired");
        else expect(row).toBe(before.get(row.id));
      }

      // Another database behind the same source id is read whole, as is every FULL_PASS_EVERY_SCANS-th scan.
      const [elsewhere] = await reads.load(config, { PAPERCLIP_DB_URL: `${url}?application_name=other` });
      expect(elsewhere?.readUpTo?.fullPass).toBe(true);
      const passes: boolean[] = [];
      for (let scan = 0; scan < FULL_PASS_EVERY_SCANS; scan++)
        passes.push((await reads.load(config, env))[0]?.readUpTo?.fullPass ?? true);
      expect(passes).toEqual([true, ...Array(FULL_PASS_EVERY_SCANS - 1).fill(false)]);
      expect((await reads.load(config, env))[0]?.readUpTo?.fullPass).toBe(true);
    } finally {
      await client.end();
    }
  }, 60_000);
});
