import { afterAll, beforeAll } from "vitest";
import { type PostgresServer, startPostgres } from "./postgres.js";

/**
 * One embedded PostgreSQL server for a test file: started before its tests, stopped after them. Call
 * it at the top of the file; the server it returns is there once the file's `beforeAll`s have run.
 */
export function postgresForSuite(): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);
  return () => {
    if (server === undefined) throw new Error("the test file's PostgreSQL server has not started");
    return server;
  };
}
