import type { LeaseRepair, RepairOutcome } from "../../../shared/domain/lease-repair.js";
import { sqlComment, sqlJsonb, sqlString, sqlTimestamp } from "./sql-literal.js";

/**
 * The repair as SQL for Paperclip's PostgreSQL. Each row is one compare-and-set UPDATE: it changes the
 * row only if `updated_at` is still the value read, so a row Paperclip touched since is left alone
 * (the statement reports UPDATE 0) instead of being overwritten with stale metadata. `updated_at` is
 * compared to the millisecond because that is all the REST API and JSON sources carry of it, while the
 * column keeps microseconds.
 */

/** The schema the statements were written for (`environment_leases`, its columns and types). */
export const PAPERCLIP_SCHEMA = {
  repo: "paperclipai/paperclip",
  commit: "02846c88a899c33fb8a84dc4890c72b71fb8aba8",
  file: "packages/db/src/schema/environment_leases.ts",
} as const;

/** The cleanup sweep the hand-back relies on (it selects `status = 'pending_cleanup'`). */
export const PAPERCLIP_SWEEP = {
  repo: "paperclipai/paperclip",
  commit: "3b919b0bd8d141c6997d3cef38a69ed17ea5c11e",
  file: "server/src/services/heartbeat/recovery.ts",
} as const;

export interface RepairStatement {
  /** For node-postgres: `client.query(text, values)`. */
  text: string;
  values: string[];
}

const SAME_ROW = "id = $2 AND date_trunc('milliseconds', updated_at) = $3::timestamptz";

/** The parameterised form of one row's statement. */
export function repairStatement(repair: LeaseRepair, options: { handBack: boolean }): RepairStatement {
  const values = [JSON.stringify(repair.metadata), repair.leaseId, repair.seenUpdatedAt];
  if (options.handBack && repair.handBack.ok) {
    return {
      text: `UPDATE environment_leases SET metadata = $1::jsonb, status = 'pending_cleanup', updated_at = now() WHERE ${SAME_ROW} AND status = $4`,
      values: [...values, repair.seenStatus],
    };
  }
  return {
    text: `UPDATE environment_leases SET metadata = $1::jsonb, updated_at = now() WHERE ${SAME_ROW}`,
    values,
  };
}

/** One transaction of every repairable row; refused rows are named in comments and touch nothing. */
export function repairSql(
  outcomes: readonly RepairOutcome[],
  options: { handBack: boolean; generatedAt: string },
): string {
  const repairs = outcomes.filter((outcome): outcome is LeaseRepair => outcome.ok);
  const refused = outcomes.filter((outcome) => !outcome.ok);
  const lines = [
    sqlComment(`Leasekeeper lease repair, generated ${options.generatedAt}.`),
    sqlComment(
      `Written for Paperclip's environment_leases as of ${PAPERCLIP_SCHEMA.repo}@${PAPERCLIP_SCHEMA.commit} (${PAPERCLIP_SCHEMA.file}).`,
    ),
    sqlComment(
      "Each UPDATE changes its row only if updated_at is still the value read; UPDATE 0 means the row changed since and was left alone.",
    ),
  ];
  if (options.handBack) {
    lines.push(
      sqlComment(
        `Hand-back: rows are set to pending_cleanup for Paperclip's own cleanup sweep (${PAPERCLIP_SWEEP.repo}@${PAPERCLIP_SWEEP.commit.slice(0, 12)}, ${PAPERCLIP_SWEEP.file}).`,
      ),
    );
  }
  for (const refusal of refused)
    lines.push(sqlComment(`Not repaired: lease ${refusal.leaseId}: ${refusal.message}`));
  if (repairs.length === 0) {
    lines.push(sqlComment("Nothing to repair."));
    return `${lines.join("\n")}\n`;
  }
  lines.push("SET client_encoding = 'UTF8';", "BEGIN;");
  for (const repair of repairs) {
    const handBack = options.handBack && repair.handBack.ok;
    lines.push(
      sqlComment(`lease ${repair.leaseId}: ${repair.problems.join(", ")}; proven by its workspace marker.`),
    );
    if (options.handBack && !repair.handBack.ok)
      lines.push(sqlComment(`Not handed back: ${repair.handBack.message}`));
    for (const field of repair.unrestorable)
      lines.push(sqlComment(`${field.field} not restored: ${field.consequence}`));
    lines.push(
      "UPDATE environment_leases",
      `   SET metadata = ${sqlJsonb(repair.metadata)},${handBack ? " status = 'pending_cleanup'," : ""} updated_at = now()`,
      ` WHERE id = ${sqlString(repair.leaseId)}`,
      `   AND date_trunc('milliseconds', updated_at) = ${sqlTimestamp(repair.seenUpdatedAt)}${handBack ? `\n   AND status = ${sqlString(repair.seenStatus)}` : ""};`,
    );
  }
  lines.push("COMMIT;");
  return `${lines.join("\n")}\n`;
}
