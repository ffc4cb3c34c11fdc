import { createHash } from "node:crypto";
import type { SourceProblem } from "../../../shared/domain/paperclip.js";
import type { HolderName, PaperclipSchemaShape, StampedTable } from "./paperclip-db-schema.js";
import type { ReadSince } from "./source-read.js";

/**
 * How long before the previous read's watermark a read of changed rows starts looking, every time.
 *
 * Paperclip stamps `environment_leases.updated_at` in its application (`updatedAt: now`, a `new Date()`
 * of the server process taken before the statement, in server/src/services/environments.ts), not in the
 * database at commit. A transaction that stamped its row before our snapshot but committed after it was
 * invisible to that read, and its stamp is already older than the watermark: without an overlap it would
 * never be read again until a full pass. The overlap covers such late commits and the skew between
 * Paperclip's clock and the database's; a change older than it is left to the next full pass.
 */
export const CHANGED_ROWS_OVERLAP_MS = 2 * 60_000;

/** A lease row the source could not use, and why: a problem naming its id once its place is known. */
export interface UnusableRow {
  id: string;
  message: string;
}

const PROBLEM_PREFIX = "environment_leases row ";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROBLEM_MESSAGE = /^environment_leases row ([^:\s]+): ([\s\S]*)$/;

/** The problem's message for an unusable row (read back by `unusableFromProblem`). */
export function rowProblemMessage(row: UnusableRow): string {
  return `${PROBLEM_PREFIX}${row.id}: ${row.message}`;
}

/** The unusable row a previous snapshot's problem names, or null for any other problem. */
export function unusableFromProblem(problem: SourceProblem, sourceId: string): UnusableRow | null {
  if (problem.source !== sourceId) return null;
  const match = PROBLEM_MESSAGE.exec(problem.message);
  return match === null ? null : { id: match[1]!, message: match[2]! };
}

/**
 * The unusable rows the last read reported, by id: a read of changed rows reports each again unless it
 * reads the row again or the row left (as `mergeChangedRows` keeps a row), each with its problem as
 * reported then. Only ids of Paperclip's shape (UUIDs) can name a row of its database.
 */
export function unusableRowsFrom(
  problems: readonly SourceProblem[],
  sourceId: string,
): Map<string, { row: UnusableRow; problem: SourceProblem }> {
  const rows = new Map<string, { row: UnusableRow; problem: SourceProblem }>();
  for (const problem of problems) {
    const row = unusableFromProblem(problem, sourceId);
    if (row !== null && UUID.test(row.id)) rows.set(row.id, { row, problem });
  }
  return rows;
}

/** An environment as the catalog query returns it, before it is parsed. */
export interface RawEnvironment {
  id?: unknown;
  driver?: unknown;
  config?: unknown;
}

/**
 * A digest of what a lease row reads as besides its own columns and the tables stamped with
 * `updated_at`: the schema's shape and holder names, each environment's driver and provider (whether its
 * rows are CreateOS rows, and what became of their environment), which environments parsed, and the
 * metadata keys the scan leaves out. None of these stamp the lease rows they change, so when the digest
 * differs from the previous read's the read is a full one.
 */
export function readBasis(
  shape: PaperclipSchemaShape,
  names: ReadonlySet<HolderName>,
  environments: readonly RawEnvironment[],
  parsedIds: ReadonlySet<string>,
  keysLeftOut: readonly string[],
): string {
  const environmentKeys = environments
    .map((row) => {
      const config = row.config;
      const provider =
        config !== null && typeof config === "object" ? (config as Record<string, unknown>).provider : null;
      const id = String(row.id);
      return [id, row.driver ?? null, provider ?? null, parsedIds.has(id)];
    })
    .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  return createHash("sha256")
    .update(JSON.stringify([1, shape, [...names].sort(), [...keysLeftOut].sort(), environmentKeys]))
    .digest("base64url")
    .slice(0, 22);
}

/** The tables a read of changed rows must look at by `updated_at`, for the holder names it reads. */
export function tablesToWatch(names: ReadonlySet<HolderName>): StampedTable[] {
  const tables: StampedTable[] = ["heartbeat_runs"];
  if (names.has("agentName")) tables.push("agents");
  if (names.has("issueTitle") || names.has("issueIdentifier")) tables.push("issues");
  if (names.has("executionWorkspaceName")) tables.push("execution_workspaces");
  return tables;
}

/**
 * Where a read of changed rows starts (`updated_at` after it), or null when this read must be a full
 * one: the caller asked for it, the basis changed or is unknown, a table whose rows change what a lease
 * reads as has no `updated_at`, or the watermark is unreadable or later than the database's time now (its
 * clock went back, or it is another database).
 */
export function changedRowsFrom(
  changedSince: Pick<ReadSince, "watermark" | "basis" | "fullPass"> | undefined,
  now: {
    watermark: string;
    basis: string;
    stamped: ReadonlySet<StampedTable>;
    names: ReadonlySet<HolderName>;
  },
  overlapMs: number,
): string | null {
  if (changedSince === undefined || changedSince.fullPass) return null;
  if (changedSince.basis === undefined || changedSince.basis !== now.basis) return null;
  if (!tablesToWatch(now.names).every((table) => now.stamped.has(table))) return null;
  const previous = Date.parse(changedSince.watermark);
  const current = Date.parse(now.watermark);
  if (!Number.isFinite(previous) || !Number.isFinite(current) || previous > current) return null;
  // Date keeps milliseconds: the microseconds dropped make the start earlier, never later.
  return new Date(previous - Math.max(0, overlapMs)).toISOString();
}
