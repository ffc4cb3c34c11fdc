import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { borrowConnection, handBack, inTransaction, withConnection } from "./borrowed-connection.js";

// Borrowed connections on a real embedded PostgreSQL: heard once however often they are lent, reused
// after work that succeeded, closed after work that threw, and a transaction that throws leaves nothing.

const postgres = postgresForSuite();

async function poolOfOne(prefix: string): Promise<pg.Pool> {
  const { url } = await postgres().createDatabase(prefix);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on("error", () => undefined);
  return pool;
}

describe("a borrowed connection", () => {
  it("is heard by one listener while lent, however many times the pool lends it", async () => {
    const pool = await poolOfOne("borrowed_heard");
    try {
      const seen = new Set<pg.PoolClient>();
      const listeners: number[] = [];
      for (let lent = 0; lent < 12; lent += 1) {
        const client = await borrowConnection(pool);
        seen.add(client);
        listeners.push(client.listenerCount("error"));
        handBack(client, false);
      }
      expect(seen.size).toBe(1);
      expect(new Set(listeners)).toEqual(new Set([1]));
    } finally {
      await pool.end();
    }
  });

  it("is reused after work that returned and closed after work that threw", async () => {
    const pool = await poolOfOne("borrowed_closed");
    try {
      const first = await withConnection(
        pool,
        async (client) => (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid,
      );
      const second = await withConnection(
        pool,
        async (client) => (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid,
      );
      expect(second).toBe(first);
      await expect(
        withConnection(pool, async (client) => {
          await client.query("SELECT 1");
          throw new Error("the work failed");
        }),
      ).rejects.toThrow("the work failed");
      expect(pool.totalCount).toBe(0);
      const third = await withConnection(
        pool,
        async (client) => (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid,
      );
      expect(third).not.toBe(first);
    } finally {
      await pool.end();
    }
  });

  it("runs a transaction that commits what it wrote, or rolls back all of it when it throws", async () => {
    const pool = await poolOfOne("borrowed_transaction");
    try {
      await pool.query("CREATE TABLE notes (note TEXT NOT NULL)");
      await inTransaction(pool, async (client) => {
        await client.query("INSERT INTO notes VALUES ('kept')");
      });
      await expect(
        inTransaction(pool, async (client) => {
          await client.query("INSERT INTO notes VALUES ('rolled back')");
          throw new Error("the work failed");
        }),
      ).rejects.toThrow("the work failed");
      const { rows } = await pool.query<{ note: string }>("SELECT note FROM notes");
      expect(rows.map((row) => row.note)).toEqual(["kept"]);
      const isolation = await inTransaction(
        pool,
        async (client) => (await client.query("SHOW transaction_isolation")).rows[0].transaction_isolation,
        "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
      );
      expect(isolation).toBe("repeatable read");
    } finally {
      await pool.end();
    }
  });
});
