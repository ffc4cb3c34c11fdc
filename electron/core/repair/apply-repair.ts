import type { LeaseRepair, RepairOutcome } from "../../../shared/domain/lease-repair.js";
import { CoreError } from "../errors/core-error.js";
import { describeDatabaseError } from "../leases/paperclip-db.js";
import { postgresDriver } from "../postgres/driver.js";
import { repairStatement } from "./repair-sql.js";

/**
 * Runs the exported repair against Paperclip's database: the same compare-and-set statements as the SQL
 * export, in one transaction, over a connection string the operator configured for writing (the read
 * source's role stays read-only). A row whose `updated_at` moved since it was read matches nothing and
 * is reported as changed, never overwritten; the other rows of the batch still commit, exactly as the
 * exported SQL would in psql.
 */

export interface AppliedRepairs {
  applied: LeaseRepair[];
  /** Rows Paperclip changed after they were read (or that no longer exist): left alone. */
  changed: LeaseRepair[];
}

export async function applyRepairs(
  outcomes: readonly RepairOutcome[],
  options: { writeUrl: string; handBack: boolean; timeoutMs: number },
): Promise<AppliedRepairs> {
  const repairs = outcomes.filter((outcome): outcome is LeaseRepair => outcome.ok);
  const result: AppliedRepairs = { applied: [], changed: [] };
  if (repairs.length === 0) return result;
  const pg = await postgresDriver();
  const client = new pg.Client({
    connectionString: options.writeUrl,
    connectionTimeoutMillis: options.timeoutMs,
    application_name: "leasekeeper repair",
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("BEGIN");
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(options.timeoutMs))}`);
    for (const repair of repairs) {
      const statement = repairStatement(repair, { handBack: options.handBack });
      const { rowCount } = await client.query(statement.text, statement.values);
      (rowCount === 1 ? result.applied : result.changed).push(repair);
    }
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    // The driver's text may quote the host or the user of the write URL; the code alone is told.
    throw new CoreError("repair", "not-applied", `Nothing was repaired: ${describeDatabaseError(error)}.`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
