import type pg from "pg";

// A pool listens for a connection's `error` only while the connection is idle in it. One it has lent
// and the server then ends (a restart, a terminated backend, a failover) emits an `error` nobody hears,
// even after the statement under way has failed with it, and an unheard `error` ends the process. So
// every connection Leasekeeper borrows is heard for as long as it lives: the error is dropped there,
// since the statement under way, or the next one, fails with it and its caller reports that failure.
const heard = new WeakSet<pg.PoolClient>();
const dropHeard = () => undefined;

/** A connection from `pool` whose server ending it fails the statement, never the process. */
export async function borrowConnection(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  if (!heard.has(client)) {
    client.on("error", dropHeard);
    heard.add(client);
  }
  return client;
}

/** Hands a borrowed connection back; a broken one (or one in an unknown state) is closed, not reused. */
export function handBack(client: pg.PoolClient, broken: boolean): void {
  client.release(broken);
}

/**
 * Runs `use` on a borrowed connection and hands it back. When `use` throws, the connection is closed
 * rather than reused: it may be broken, or be left inside a transaction its rollback could not end.
 */
export async function withConnection<T>(
  pool: pg.Pool,
  use: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await borrowConnection(pool);
  let failed = true;
  try {
    const result = await use(client);
    failed = false;
    return result;
  } finally {
    handBack(client, failed);
  }
}

/**
 * Runs `work` in one transaction on a borrowed connection: begun with `begin`, committed when `work`
 * returns, rolled back when it throws (and the connection then closed, as `withConnection` does).
 */
export function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  begin = "BEGIN",
): Promise<T> {
  return withConnection(pool, async (client) => {
    await client.query(begin);
    try {
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  });
}
