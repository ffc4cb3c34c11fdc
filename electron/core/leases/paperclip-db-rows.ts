import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { isTrimmableMetadata } from "../../../shared/domain/scanned-metadata.js";
import { COLUMNS_READ, HOLDER_NAMES, type HolderName } from "./paperclip-db-schema.js";
import { parseLeaseRow, withoutSecrets } from "./rows.js";

/**
 * A lease row as the page query returns it: one value per field of `LEASE_FIELDS`, in that order (the
 * driver's array row mode, so no object is built per row only to be copied into another).
 */
export type DatabaseLeaseRow = readonly unknown[];

const camelCase = (column: string) =>
  column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The fields of a lease row, named as Paperclip's JSON names them, in the order the queries select them. */
export const LEASE_FIELDS: readonly string[] = [
  ...COLUMNS_READ.environment_leases.map(camelCase),
  "heartbeatRunStatus",
  // The names of what holds the row (`HOLDER_NAMES`), null where the database has no table to read them.
  ...HOLDER_NAMES,
];

const at = (field: string) => {
  const index = LEASE_FIELDS.indexOf(field);
  if (index < 0) throw new Error(`no lease field ${field}`);
  return index;
};
const ID = at("id");
const COMPANY_ID = at("companyId");
const ENVIRONMENT_ID = at("environmentId");
const EXECUTION_WORKSPACE_ID = at("executionWorkspaceId");
const ISSUE_ID = at("issueId");
const HEARTBEAT_RUN_ID = at("heartbeatRunId");
const STATUS = at("status");
const LEASE_POLICY = at("leasePolicy");
const PROVIDER = at("provider");
const PROVIDER_LEASE_ID = at("providerLeaseId");
const ACQUIRED_AT = at("acquiredAt");
const LAST_USED_AT = at("lastUsedAt");
const EXPIRES_AT = at("expiresAt");
const RELEASED_AT = at("releasedAt");
const FAILURE_REASON = at("failureReason");
const CLEANUP_STATUS = at("cleanupStatus");
const METADATA = at("metadata");
const CREATED_AT = at("createdAt");
const UPDATED_AT = at("updatedAt");
const HEARTBEAT_RUN_STATUS = at("heartbeatRunStatus");
const NAME_AT = HOLDER_NAMES.map((name) => [name, at(name)] as const);
/** The longest name the queries select (`left(…, NAME_LENGTH)`); the schema allows room for any text. */
export const NAME_LENGTH = 200;

/** The row's id, for a problem that names it. */
export function databaseRowId(values: DatabaseLeaseRow): string {
  return String(values[ID]);
}

/** The row's environment id, or null. */
export function databaseRowEnvironmentId(values: DatabaseLeaseRow): string | null {
  const id = values[ENVIRONMENT_ID];
  return typeof id === "string" ? id : null;
}

/**
 * How much of the row's metadata the query read: a scan's `scannedMetadata` (a row in the plugin's shape
 * is then marked `partialMetadata`), or the whole document.
 */
export type MetadataRead = "scanned" | "whole";

/**
 * One database row as a lease row, or why it cannot be used. `LeaseRowSchema` is the rule; checking
 * 100,000 rows with it costs more than reading them, so a row is first checked by hand for exactly what
 * the schema would find wrong in values a database can hold (text or null, JSON for `metadata`), and
 * built directly when it passes. A row the hand check doubts goes to the schema, which decides and words
 * the message: the check may only ever be stricter, never looser.
 */
export function leaseRowFromDatabase(
  values: DatabaseLeaseRow,
  environmentChange: string | undefined,
  read: MetadataRead,
  /** The names the database has tables for: each is set on the row (null when none was found). */
  names: ReadonlySet<HolderName> = new Set(),
): { ok: true; row: LeaseRow } | { ok: false; message: string } {
  const partial = read === "scanned" && isTrimmableMetadata(values[METADATA]);
  const row = passesHandCheck(values, environmentChange, names)
    ? build(values, environmentChange, partial, names)
    : null;
  if (row !== null) return { ok: true, row };
  const object = databaseRowObject(values, environmentChange, names);
  if (partial) object.partialMetadata = true;
  return parseLeaseRow(object);
}

/** The row as the schema reads it (the slow way, for a row the hand check doubts and for `readLease`). */
export function databaseRowObject(
  values: DatabaseLeaseRow,
  environmentChange: string | undefined,
  names: ReadonlySet<HolderName> = new Set(),
): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let index = 0; index < LEASE_FIELDS.length; index++) {
    const field = LEASE_FIELDS[index]!;
    if (names.has(field as HolderName) || !(HOLDER_NAMES as readonly string[]).includes(field))
      object[field] = values[index];
  }
  if (environmentChange !== undefined) object.environmentChange = environmentChange;
  return object;
}

/** Whether the row is built without the schema (exported for the test that holds it to the schema). */
export function passesHandCheck(
  values: DatabaseLeaseRow,
  environmentChange: string | undefined,
  names: ReadonlySet<HolderName> = new Set(),
): boolean {
  return (
    isId(values[ID]) &&
    isId(values[COMPANY_ID]) &&
    isNullableId(values[ENVIRONMENT_ID]) &&
    isNullableId(values[EXECUTION_WORKSPACE_ID]) &&
    isNullableId(values[ISSUE_ID]) &&
    isNullableId(values[HEARTBEAT_RUN_ID]) &&
    isText(values[STATUS], 1, 100) &&
    isText(values[LEASE_POLICY], 0, 100) &&
    isNullableText(values[PROVIDER], 200) &&
    isNullableText(values[PROVIDER_LEASE_ID], 1000) &&
    isInstant(values[ACQUIRED_AT]) &&
    isInstant(values[LAST_USED_AT]) &&
    isNullableInstant(values[EXPIRES_AT]) &&
    isNullableInstant(values[RELEASED_AT]) &&
    isNullableText(values[FAILURE_REASON], 10_000) &&
    isNullableText(values[CLEANUP_STATUS], 100) &&
    values[METADATA] !== undefined &&
    isNullableInstant(values[CREATED_AT]) &&
    isNullableInstant(values[UPDATED_AT]) &&
    isNullableText(values[HEARTBEAT_RUN_STATUS], 100) &&
    NAME_AT.every(([name, index]) => !names.has(name) || isNullableText(values[index], 2 * NAME_LENGTH)) &&
    (environmentChange === undefined || environmentChange.length <= 200)
  );
}

// Built in the schema's field order, so a row reads the same whichever way it was checked.
function build(
  values: DatabaseLeaseRow,
  environmentChange: string | undefined,
  partial: boolean,
  names: ReadonlySet<HolderName>,
): LeaseRow {
  const row: LeaseRow = {
    id: values[ID] as string,
    companyId: values[COMPANY_ID] as string,
    environmentId: values[ENVIRONMENT_ID] as string | null,
    executionWorkspaceId: values[EXECUTION_WORKSPACE_ID] as string | null,
    issueId: values[ISSUE_ID] as string | null,
    heartbeatRunId: values[HEARTBEAT_RUN_ID] as string | null,
    status: values[STATUS] as string,
    leasePolicy: values[LEASE_POLICY] as string,
    provider: values[PROVIDER] as string | null,
    providerLeaseId: values[PROVIDER_LEASE_ID] as string | null,
    acquiredAt: values[ACQUIRED_AT] as string,
    lastUsedAt: values[LAST_USED_AT] as string,
    expiresAt: values[EXPIRES_AT] as string | null,
    releasedAt: values[RELEASED_AT] as string | null,
    failureReason: values[FAILURE_REASON] as string | null,
    cleanupStatus: values[CLEANUP_STATUS] as string | null,
    metadata: withoutSecrets(values[METADATA]) as LeaseRow["metadata"],
    createdAt: values[CREATED_AT] as string | null,
    updatedAt: values[UPDATED_AT] as string | null,
    heartbeatRunStatus: values[HEARTBEAT_RUN_STATUS] as string | null,
  };
  for (const [name, index] of NAME_AT) if (names.has(name)) row[name] = values[index] as string | null;
  if (environmentChange !== undefined) row.environmentChange = environmentChange;
  if (partial) row.partialMetadata = true;
  return row;
}

// An id survives storage exactly when it is well-formed Unicode (no unpaired surrogate). The check is
// ES2024's, present in every Node and Electron this runs on though the compiler's library predates it.
const isWellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();
const isId = (value: unknown): boolean =>
  typeof value === "string" && value.length >= 1 && value.length <= 200 && isWellFormed(value);
const isNullableId = (value: unknown): boolean => value === null || isId(value);
const isText = (value: unknown, min: number, max: number): boolean =>
  typeof value === "string" && value.length >= min && value.length <= max;
const isNullableText = (value: unknown, max: number): boolean =>
  value === null || (typeof value === "string" && value.length <= max);
const isNullableInstant = (value: unknown): boolean => value === null || isInstant(value);

/**
 * The text the queries make of a timestamp in a UTC session, `YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00`, with
 * a real calendar date and time of day: every such text is a date `Date.parse` reads. Anything else
 * (`infinity`, a year past 9999, a text column holding something else) is left to the schema.
 */
function isInstant(value: unknown): boolean {
  if (typeof value !== "string") return false;
  const length = value.length;
  if (length !== 25 && (length < 27 || length > 32)) return false;
  if (
    value.charCodeAt(4) !== DASH ||
    value.charCodeAt(7) !== DASH ||
    value.charCodeAt(10) !== LETTER_T ||
    value.charCodeAt(13) !== COLON ||
    value.charCodeAt(16) !== COLON ||
    !value.endsWith("+00:00")
  ) {
    return false;
  }
  if (length > 25 && value.charCodeAt(19) !== DOT) return false;
  for (let index = 20; index < length - 6; index++) if (!isDigit(value.charCodeAt(index))) return false;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const hour = digits(value, 11, 2);
  const minute = digits(value, 14, 2);
  const second = digits(value, 17, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  return day <= daysIn(year, month);
}

const DASH = 0x2d;
const COLON = 0x3a;
const DOT = 0x2e;
const LETTER_T = 0x54;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/** The number written by `count` digits from `from`, or -1 when one of them is not a digit. */
function digits(text: string, from: number, count: number): number {
  let number = 0;
  for (let index = from; index < from + count; index++) {
    const code = text.charCodeAt(index);
    if (!isDigit(code)) return -1;
    number = number * 10 + (code - 0x30);
  }
  return number;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
