import {
  BILLING_PROVIDER_STATES,
  CREATEOS_PROVIDER,
  ENDED_LEASE_STATUSES,
  type ProviderCode,
  type RowFlag,
} from "./codes.js";
import {
  isWellFormedMarker,
  type LeaseMetadata,
  metadataObject,
  recorded,
  recordedNumber,
} from "./lease-metadata.js";
import type { Environment, LeaseRow } from "./paperclip.js";

export interface FlagContext {
  now: Date;
  /** Every other row that names this row's sandbox id. */
  otherRowsOnSandbox: readonly LeaseRow[];
}

/** The facts about a row worth a flag beside its headline, in ROW_FLAGS order. */
export function rowFlags(
  row: LeaseRow,
  environment: Environment | null,
  provider: ProviderCode,
  context: FlagContext,
): RowFlag[] {
  const flags: RowFlag[] = [];
  if (hasStaleConfig(row, environment)) flags.push("stale-config");
  if (isLeaking(row, provider, context.otherRowsOnSandbox)) flags.push("leaking");
  if (isInUse(row)) flags.push("in-use");
  if (isHostCleanup(row, context.now)) flags.push("host-cleanup");
  if (context.otherRowsOnSandbox.length > 0) flags.push("shared");
  return flags;
}

/** The config fields the plugin itself compares on resume, before any HTTP call. */
export const DRIFT_FIELDS = ["shape", "rootfs", "region"] as const;
export type DriftField = (typeof DRIFT_FIELDS)[number];

/**
 * The stored-config fields every reuse fingerprint covers, compared even when the current config omits
 * them: the host records the environment's stored config in the lease's metadata at acquisition and
 * fingerprints the same config when it looks for a lease to resume, so any field that differs now makes
 * the fingerprint differ and the candidate is destroyed instead of resumed.
 */
export const FINGERPRINT_FIELDS = ["shape", "rootfs", "region", "reuseLease", "timeoutMs"] as const;

/**
 * Config keys not compared here: the provider and API URL have their own ownership codes, and secrets
 * are fingerprinted by version at Paperclip, which no lease row records.
 */
const NOT_DRIFT_COMPARED = new Set(["provider", "apiUrl"]);
const SECRET_KEY = /(api[-_]?key|token|secret|passw|credential)/i;

/**
 * The fields whose recorded value differs from the environment's current config: the fingerprint fields
 * and every other field the current config sets. Values are compared as JSON with keys sorted, as the
 * fingerprint serialises them; the plugin records an unset rootfs or region as null while a config may
 * simply omit it, so null and undefined are alike. Beyond the plugin's own shape, rootfs and region, a
 * field is compared only when the lease recorded it: a lease an older host wrote kept only the plugin's
 * fields, and its absence says nothing about the config it was acquired with. A config with no fields at
 * all is one Paperclip did not show (its redacted view), so nothing is compared against it.
 */
export function driftedFields(metadata: LeaseMetadata, environment: Environment): string[] {
  const config = environment.config as Record<string, unknown>;
  const keys = Object.keys(config);
  if (keys.length === 0) return [];
  const fields: string[] = [...FINGERPRINT_FIELDS];
  for (const key of keys) {
    if (fields.includes(key) || NOT_DRIFT_COMPARED.has(key) || SECRET_KEY.test(key)) continue;
    if (isSecretRef(config[key])) continue;
    fields.push(key);
  }
  return fields.filter(
    (field) =>
      ((DRIFT_FIELDS as readonly string[]).includes(field) || Object.hasOwn(metadata, field)) &&
      differs(recorded(metadata, field), config[field]),
  );
}

export function hasDrifted(metadata: LeaseMetadata, environment: Environment, field: DriftField): boolean {
  return differs(recorded(metadata, field), environment.config[field]);
}

function differs(recordedValue: unknown, current: unknown): boolean {
  return stableJson(recordedValue ?? null) !== stableJson(current ?? null);
}

function isSecretRef(value: unknown): boolean {
  const object = metadataObject(value);
  return (
    object !== null &&
    (recorded(object, "secretId") !== undefined || recorded(object, "type") === "secret_ref")
  );
}

/** JSON with object keys sorted, own keys only; depth-capped so a hostile value cannot recurse forever. */
function stableJson(value: unknown, depth = 0): string {
  if (depth > 20) return '"(deep)"';
  if (Array.isArray(value)) return `[${value.map((entry) => stableJson(entry, depth + 1)).join(",")}]`;
  const object = metadataObject(value);
  if (object !== null) {
    const keys = Object.keys(object).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(recorded(object, key), depth + 1)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The next resume will expire this lease (and Paperclip will destroy its sandbox): a field its reuse
 * fingerprint covers no longer matches the environment, or its marker is not the UUID the plugin checks. Only for rows
 * the CreateOS plugin wrote; an orphan row has no config to drift from, but its marker still counts.
 */
export function hasStaleConfig(row: LeaseRow, environment: Environment | null): boolean {
  const metadata = metadataObject(row.metadata);
  if (metadata === null || recorded(metadata, "provider") !== CREATEOS_PROVIDER) return false;
  if (!isWellFormedMarker(recorded(metadata, "marker"))) return true;
  return environment !== null && driftedFields(metadata, environment).length > 0;
}

/** Paperclip considers these rows finished: a sandbox billing behind one is money nobody is using. */
const ENDED_STATUSES: readonly string[] = ENDED_LEASE_STATUSES;

/**
 * The sandbox bills compute although its lease is over, or although Paperclip's cleanup of it failed (a
 * `pending_cleanup` row whose sweep keeps failing is the case that needs an operator). Billing is
 * required: a paused sandbox behind a released reusable lease is the normal warm state, and a failed
 * cleanup whose sandbox is paused or gone costs no compute. A sandbox that a run or a retained lease holds
 * is billing for it, not leaking: this row's own run, or another row's (a reusable sandbox resumed
 * by a new run runs for that run, behind the old run's released row).
 */
export function isLeaking(
  row: LeaseRow,
  provider: ProviderCode,
  otherRowsOnSandbox: readonly LeaseRow[],
): boolean {
  if (!(BILLING_PROVIDER_STATES as readonly string[]).includes(provider)) return false;
  if (!ENDED_STATUSES.includes(row.status) && row.cleanupStatus !== "failed") return false;
  return !isInUse(row) && !otherRowsOnSandbox.some(holdsSandbox);
}

/** Statuses of a row that someone still relies on: a run holds it, or it is kept on purpose. */
const HOLDING_LEASE_STATUSES: readonly string[] = ["active", "retained"];

/** This row still holds its sandbox (never destroy a sandbox under such a row without an override). */
export function holdsSandbox(row: LeaseRow): boolean {
  return HOLDING_LEASE_STATUSES.includes(row.status);
}

/** A run holds this lease now: the plugin has commands in flight on its sandbox. */
export function isInUse(row: LeaseRow): boolean {
  return row.status === "active" && row.heartbeatRunId !== null && !isStranded(row);
}

/** Run statuses Paperclip counts as still holding a lease; any other is terminal (or unknown to it). */
const LIVE_RUN_STATUSES: readonly string[] = ["queued", "scheduled_retry", "running"];

/**
 * An `active` row whose run the source can see is over or gone: no command is in flight, and
 * Paperclip's own orphaned-lease sweep will move it to `pending_cleanup`. Only a source that reads the
 * run (`heartbeatRunStatus` present) can tell; elsewhere an active row with a run id stays in use.
 */
export function isStranded(row: LeaseRow): boolean {
  if (row.status !== "active" || row.heartbeatRunStatus === undefined) return false;
  return row.heartbeatRunStatus === null || !LIVE_RUN_STATUSES.includes(row.heartbeatRunStatus);
}

/**
 * Paperclip's pending-cleanup sweep holds an unexpired claim on this row: it owns the sandbox
 * until the claim lapses, and acting beside it would race its teardown.
 */
export function isHostCleanup(row: LeaseRow, now: Date): boolean {
  if (row.status !== "pending_cleanup") return false;
  const metadata = metadataObject(row.metadata);
  if (metadata === null || recorded(metadata, "pendingCleanupInFlight") !== true) return false;
  return recordedNumber(metadata, "pendingCleanupLeaseExpiresAtMs") > now.getTime();
}
