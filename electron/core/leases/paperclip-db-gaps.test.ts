import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { PaperclipDbSource } from "./paperclip-db.js";
import { createPaperclipSchema, PaperclipSeed } from "./testing/paperclip-db/seed.js";

// A real embedded PostgreSQL, as paperclip-db.test.ts runs: which environment a row names is a column.
const postgres = postgresForSuite();

const API_URL = "https://api.sb.createos.sh";

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

interface World {
  url: string;
  /** The environment holding one row that cannot be used. */
  broken: string;
  /** An environment read whole. */
  whole: string;
  /** An environment whose config cannot be parsed, though its id can be read. */
  unparseable: string;
  /** The unusable row of `broken`, and one that names no environment. */
  unusable: { inBroken: string; nowhere: string };
}

/** Two CreateOS environments, one with an unusable row; an environment that cannot be parsed; an orphan row. */
async function seedWorld(name: string): Promise<World> {
  const db = await postgres().createDatabase(name);
  return withClient(db.url, async (client) => {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    const company = await seed.company("Acme Robotics");
    const config = { provider: "createos", apiUrl: API_URL };
    const broken = await seed.environment({ name: "CreateOS main", config });
    const whole = await seed.environment({ name: "CreateOS second", config });
    const unparseable = await seed.environment({
      name: "CreateOS odd",
      config: { provider: "createos", apiUrl: 42 },
    });
    const row = (environmentId: string | null, sandbox: string) =>
      seed.lease({
        companyId: company,
        environmentId,
        providerLeaseId: sandbox,
        metadata: { provider: "createos", apiUrl: API_URL, sandboxId: sandbox, companyId: company },
      });
    await row(broken, "sbx-read");
    const inBroken = await row(broken, "sbx-unusable");
    await row(whole, "sbx-second-1");
    await row(whole, "sbx-second-2");
    const nowhere = await row(null, "sbx-nowhere");
    // A status no lease may have: the row cannot be used, its columns can still be read.
    await client.query("UPDATE environment_leases SET status = '' WHERE id = ANY($1::uuid[])", [
      [inBroken, nowhere],
    ]);
    await client.query("UPDATE environment_leases SET updated_at = now() - interval '1 hour'");
    return { url: db.url, broken, whole, unparseable, unusable: { inBroken, nowhere } };
  });
}

describe("the gaps of a read of Paperclip's database", () => {
  it("name the environment of an unusable row or environment, and only where one is known", async () => {
    const world = await seedWorld("gaps_named");
    const source = new PaperclipDbSource({ id: "paperclip-db", url: world.url, timeoutMs: 10_000 });
    try {
      const snapshot = await source.load();
      const expected = [
        {
          source: "paperclip-db",
          // Its apiUrl is what could not be read: it could be at any origin.
          origin: null,
          message: expect.stringMatching(/^environments\[\d\] could not be read$/),
          environmentId: world.unparseable,
        },
        ...[
          {
            source: "paperclip-db",
            origin: API_URL,
            message: `environment_leases row ${world.unusable.inBroken} could not be read`,
            environmentId: world.broken,
          },
          {
            source: "paperclip-db",
            origin: API_URL,
            message: `environment_leases row ${world.unusable.nowhere} could not be read`,
          },
        ].sort((a, b) => (a.message < b.message ? -1 : 1)),
      ];
      expect(snapshot.problems).toHaveLength(3);
      expect(snapshot.gaps).toEqual(expected);
      // A row that names no environment could be any environment's: its gap names none.
      expect(snapshot.gaps.filter((gap) => gap.environmentId === world.whole)).toEqual([]);
      expect(snapshot.gaps.filter((gap) => !("environmentId" in gap))).toHaveLength(1);

      // A read of what changed since, with nothing changed, still has the rows it did not read again.
      const again = await source.load({
        changedSince: {
          rows: new Map(snapshot.leases.map((row) => [row.id, row])),
          watermark: snapshot.readUpTo!.watermark,
          basis: snapshot.readUpTo!.basis!,
          problems: snapshot.problems,
          fullPass: false,
        },
      });
      expect(again.readUpTo).toMatchObject({ fullPass: false, changedRows: 0 });
      expect(again.gaps).toEqual(expected);
    } finally {
      await source.close();
    }
  }, 60_000);
});
