import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { PaperclipDbSource } from "./paperclip-db.js";
import { createPaperclipSchema, PaperclipSeed } from "./testing/paperclip-db/seed.js";

// A real embedded PostgreSQL, as paperclip-db.test.ts runs: an environment row that cannot be parsed is
// still there, so a lease row under it is not one whose environment was deleted.
const postgres = postgresForSuite();

const API_URL = "https://api.sb.createos.sh";

interface World {
  url: string;
  /** The environment whose config cannot be parsed. */
  unparseable: string;
  /** A row under an environment whose config cannot be parsed (its apiUrl is 42). */
  underUnparseable: string;
  /** A row under an environment read whole. */
  underRead: string;
  /** A row that names no environment. */
  orphan: string;
}

async function seedWorld(name: string): Promise<World> {
  const db = await postgres().createDatabase(name);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    const company = await seed.company("Acme Robotics");
    const read = await seed.environment({
      name: "CreateOS main",
      config: { provider: "createos", apiUrl: API_URL },
    });
    const unparseable = await seed.environment({
      name: "CreateOS odd",
      config: { provider: "createos", apiUrl: 42 },
    });
    const row = (environmentId: string | null, sandbox: string) =>
      seed.lease({
        companyId: company,
        environmentId,
        providerLeaseId: sandbox,
        metadata: {
          provider: "createos",
          apiUrl: API_URL,
          sandboxId: sandbox,
          companyId: company,
          ...(environmentId === null ? {} : { environmentId }),
        },
      });
    return {
      url: db.url,
      unparseable,
      underUnparseable: await row(unparseable, "sbx-odd"),
      underRead: await row(read, "sbx-main"),
      orphan: await row(null, "sbx-nowhere"),
    };
  } finally {
    await client.end();
  }
}

describe("a lease row under an environment the database source could not parse", () => {
  it("is marked environmentUnread and not called deleted, by the scan and by a re-read", async () => {
    const world = await seedWorld("environment_unread");
    const source = new PaperclipDbSource({ id: "paperclip-db", url: world.url, timeoutMs: 10_000 });
    try {
      const snapshot = await source.load();
      const byId = new Map(snapshot.leases.map((row) => [row.id, row]));
      const unread = byId.get(world.underUnparseable);
      expect(unread?.environmentUnread).toBe(true);
      expect(unread).not.toHaveProperty("environmentChange");

      // A row whose environment is gone is still said so; one whose environment was read carries neither.
      expect(byId.get(world.orphan)?.environmentChange).toBe("deleted");
      expect(byId.get(world.orphan)).not.toHaveProperty("environmentUnread");
      expect(byId.get(world.underRead)).not.toHaveProperty("environmentChange");
      expect(byId.get(world.underRead)).not.toHaveProperty("environmentUnread");

      const reread = await source.readLease(world.underUnparseable);
      expect(reread?.environmentUnread).toBe(true);
      expect(reread).not.toHaveProperty("environmentChange");

      // Asked for by itself, the environment is not said to be gone: its read fails, saying it could not be read.
      await expect(source.readEnvironment(world.unparseable)).rejects.toThrow(
        `environment ${world.unparseable} could not be read (`,
      );
    } finally {
      await source.close();
    }
  }, 60_000);
});
