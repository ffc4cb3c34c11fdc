import { OWNERSHIP_KEYS } from "../../../shared/domain/lease-metadata.js";
import { tablesToWatch } from "./paperclip-db-changed.js";
import { NAME_LENGTH } from "./paperclip-db-rows.js";
import {
  COLUMNS_READ,
  HOLDER_NAMES,
  type HolderName,
  type PaperclipSchemaShape,
  type StampedTable,
} from "./paperclip-db-schema.js";

/** The SQL the database source runs: every statement reads, and none names a secret table. */

export const CREATEOS = "createos";

const TIMESTAMP_COLUMNS: ReadonlySet<string> = new Set([
  "acquired_at",
  "last_used_at",
  "expires_at",
  "released_at",
  "created_at",
  "updated_at",
]);
// One value per field of LEASE_FIELDS, in its order: timestamps as ISO 8601 text (in the transaction's UTC
// zone) so the driver never parses a date. The run's status is null when the row names no run or its run
// is gone (Paperclip's sweep treats both alike). Each name is null where the database has no table for it
// (`names`), and cut to NAME_LENGTH characters: a long title never makes a row unusable.
const NAME_SELECT: Record<HolderName, string> = {
  agentName: "a.name",
  issueTitle: "i.title",
  issueIdentifier: "i.identifier",
  executionWorkspaceName: "w.name",
};
const leaseSelect = (metadata: string, names: ReadonlySet<HolderName>) =>
  `${COLUMNS_READ.environment_leases
    .map((column) =>
      column === "metadata"
        ? metadata
        : TIMESTAMP_COLUMNS.has(column)
          ? `to_json(l.${column}) #>> '{}'`
          : `l.${column}`,
    )
    .join(", ")}, r.status, ${HOLDER_NAMES.map((name) =>
    names.has(name) ? `left(${NAME_SELECT[name]}, ${NAME_LENGTH})` : "NULL::text",
  ).join(", ")}`;
// The tables that name what holds a row, joined only where the database has them.
const nameJoins = (names: ReadonlySet<HolderName>) =>
  [
    names.has("agentName") ? "LEFT JOIN agents a ON a.id = r.agent_id" : "",
    names.has("issueTitle") || names.has("issueIdentifier") ? "LEFT JOIN issues i ON i.id = l.issue_id" : "",
    names.has("executionWorkspaceName")
      ? "LEFT JOIN execution_workspaces w ON w.id = l.execution_workspace_id"
      : "",
  ]
    .filter((join) => join !== "")
    .join("\n    ");
// The server's side of `scannedMetadata`: metadata in the plugin's shape (an object naming an owner)
// without the keys in $3 (the host's bookkeeping no judgement reads), anything else whole. Those keys are
// most of a row's metadata; leaving them out costs the server less than sending them.
const OWNER_NAMED = OWNERSHIP_KEYS.map((key) => `l.metadata->>'${sqlKey(key)}' IS NOT NULL`).join(" OR ");
const SCANNED_METADATA = `CASE WHEN jsonb_typeof(l.metadata) = 'object' AND (${OWNER_NAMED})
      THEN l.metadata - $3::text[] ELSE l.metadata END`;
// Rows the CreateOS plugin wrote: under a CreateOS environment, or recorded as CreateOS wherever their
// environment went (deleted, or switched to another driver or provider).
const CREATEOS_ROW = `(
  (e.driver = 'sandbox' AND e.config->>'provider' = '${CREATEOS}')
  OR l.provider ILIKE '%${CREATEOS}%'
  OR l.metadata->>'provider' = '${CREATEOS}'
)`;

/**
 * The CreateOS rows of one part of the id range ($1 after, $2 up to), read through a cursor a page at a
 * time: the server plans and joins once for the whole range instead of once a page, and each fetch
 * holds one page in memory (decision 191). A read of changed rows ($4 on) takes the rows stamped after
 * $4, and those whose run, agent, issue or workspace was: each of them changes what the row reads as
 * without stamping it.
 */
export const leasesRangeQuery = (names: ReadonlySet<HolderName>, changed: boolean) => `
  SELECT ${leaseSelect(SCANNED_METADATA, names)}
    FROM environment_leases l
    LEFT JOIN environments e ON e.id = l.environment_id
    LEFT JOIN heartbeat_runs r ON r.id = l.heartbeat_run_id
    ${nameJoins(names)}
   WHERE l.id > $1::uuid AND l.id <= $2::uuid AND ${CREATEOS_ROW}${changed ? `\n     AND ${changedAfter(names, "$4")}` : ""}`;
const STAMP_ALIAS: Record<StampedTable, string> = {
  heartbeat_runs: "r",
  agents: "a",
  issues: "i",
  execution_workspaces: "w",
};
const changedAfter = (names: ReadonlySet<HolderName>, since: string) =>
  `(${["l", ...tablesToWatch(names).map((table) => STAMP_ALIAS[table])]
    .map((alias) => `${alias}.updated_at > ${since}::timestamptz`)
    .join(" OR ")})`;

/** The ids of rows stamped after $1 that are no CreateOS rows (any more): a read of changed rows drops them. */
export const LEAVING_QUERY = `
  SELECT l.id
    FROM environment_leases l
    LEFT JOIN environments e ON e.id = l.environment_id
   WHERE l.updated_at > $1::timestamptz AND ${CREATEOS_ROW} IS NOT TRUE`;

/**
 * How many CreateOS rows of the range read ($2 after) lie before each of the sorted ids in $1, counted
 * between one id and the next (`width_bucket` finds a row's interval by binary search): one pass over
 * the rows up to the last id, however many ids. A bucket's number is the count of ids at or before it.
 */
export const PLACES_QUERY = `
  SELECT width_bucket(l.id, $1::uuid[]) AS bucket, count(*)::int AS rows
    FROM environment_leases l
    LEFT JOIN environments e ON e.id = l.environment_id
   WHERE l.id > $2::uuid AND l.id < $3::uuid AND ${CREATEOS_ROW}
   GROUP BY bucket`;

/** Of each unusable row ($1), what its gap can name: its environment and the API URL it records. */
export const UNUSABLE_ROWS_QUERY = `
  SELECT l.id::text AS id, l.environment_id::text AS environment_id, l.metadata->>'apiUrl' AS api_url
    FROM environment_leases l
   WHERE l.id = ANY($1::uuid[])`;

/** One row for the last-moment re-check, a lease's detail or a repair: its metadata whole. */
export const leaseQuery = (names: ReadonlySet<HolderName>) => `
  SELECT ${leaseSelect("l.metadata", names)}
    FROM environment_leases l
    LEFT JOIN heartbeat_runs r ON r.id = l.heartbeat_run_id
    ${nameJoins(names)}
   WHERE l.id = $1::uuid`;

export function environmentsQuery(shape: PaperclipSchemaShape): string {
  const company = shape === "company-scoped" ? ", company_id" : "";
  return `SELECT id, name, driver, status, config${company} FROM environments`;
}

/** A constant key spliced into SQL: checked to be a plain name. */
function sqlKey(key: string): string {
  if (!/^[A-Za-z]+$/.test(key)) throw new Error(`not a plain metadata key: ${key}`);
  return key;
}
