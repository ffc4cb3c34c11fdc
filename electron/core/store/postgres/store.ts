import { CoreError } from "../../errors/core-error.js";
import { postgresDriver } from "../../postgres/driver.js";
import { migratePostgres } from "./migrations.js";
import { PgAuditLog } from "./pg-audit-log.js";
import { PgClaims } from "./pg-claims.js";
import { PgInventoryCache } from "./pg-inventory-cache.js";
import { PgInventoryViews } from "./pg-inventory-views.js";
import { PgJanitorTaken } from "./pg-janitor-taken.js";
import { PgJournal } from "./pg-journal.js";
import { PgProofs } from "./pg-proofs.js";
import { PgQuarantines } from "./pg-quarantines.js";

export interface PostgresStore {
  readonly claims: PgClaims;
  readonly audit: PgAuditLog;
  readonly journal: PgJournal;
  readonly inventoryViews: PgInventoryViews;
  readonly inventoryCache: PgInventoryCache;
  readonly proofs: PgProofs;
  readonly quarantines: PgQuarantines;
  readonly janitorTaken: PgJanitorTaken;
  close(): Promise<void>;
}

export interface PostgresStoreOptions {
  /** The connection string, from the environment only; never shown, logged or put in a message. */
  url: string;
  /** The variable it came from, which messages may name. */
  urlEnv: string;
  /** Each statement's limit, and the connection attempt's. */
  timeoutMs?: number;
}

/** Connects, applies pending migrations (one process at a time), and hands out the shared tables. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pg = await postgresDriver();
  const pool = new pg.Pool({
    connectionString: options.url,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    max: 4,
    application_name: "leasekeeper",
  });
  // An idle connection the server drops must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    // Worded from the SQLSTATE alone, and the driver's error is not kept as the cause: server text may
    // quote the URL's user or host.
    throw new CoreError("store", "shared-unusable", describeFailure(options.urlEnv, error));
  }
  const audit = new PgAuditLog(pool);
  return {
    claims: new PgClaims(pool),
    audit,
    journal: new PgJournal(pool, audit),
    inventoryViews: new PgInventoryViews(pool),
    inventoryCache: new PgInventoryCache(pool),
    proofs: new PgProofs(pool),
    quarantines: new PgQuarantines(pool),
    janitorTaken: new PgJanitorTaken(pool),
    close: () => pool.end(),
  };
}

function describeFailure(urlEnv: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "28P01" || code === "28000")
    return `The shared store in ${urlEnv} refused the login (SQLSTATE ${code}).`;
  if (code === "3D000") return `The database named in ${urlEnv} does not exist (SQLSTATE 3D000).`;
  if (code === "42501")
    return `The role in ${urlEnv} may not create the leasekeeper schema or its tables (SQLSTATE 42501).`;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code))
    return `The shared store in ${urlEnv} could not be prepared (SQLSTATE ${code}).`;
  return `The shared store in ${urlEnv} could not be reached.`;
}

/**
 * A read or write of the opened store that failed, as `what` (a sentence's start) and the variable:
 * worded from the SQLSTATE alone, and without the driver's error as its cause, since server text may
 * quote the URL's user or host. A failure to open is already worded so, and is kept as it is.
 */
export function sharedStoreFailure(what: string, urlEnv: string, error: unknown): Error {
  if (error instanceof CoreError) return error;
  const code = (error as { code?: unknown }).code;
  return new CoreError(
    "store",
    "shared-unusable",
    typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)
      ? `${what} in ${urlEnv} (SQLSTATE ${code}).`
      : `${what} in ${urlEnv}.`,
  );
}
