import {
  BILLING_PROVIDER_STATES,
  CREATEOS_PROVIDER,
  ENDED_LEASE_STATUSES,
  type OwnershipCode,
  type ProviderCode,
  type RowFlag,
} from "./codes.js";
import { driftedFields } from "./config-drift.js";
import { isWellFormedMarker, metadataObject, recorded, recordedNumber } from "./lease-metadata.js";
import { ownershipMismatch } from "./ownership.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { type InstalledPlugin, recordedAutoPause } from "./plugin-generations.js";
import { recordedSandboxId } from "./sandbox-id.js";

export interface FlagContext {
  now: Date;
  /** Every other row that names this row's sandbox id. */
  otherRowsOnSandbox: readonly LeaseRow[];
  /** The plugin installed on the row's Paperclip instance, where its source can tell. */
  installedPlugin?: InstalledPlugin;
}

/** The facts about a row worth a flag beside its headline, in ROW_FLAGS order. */
export function rowFlags(
  row: LeaseRow,
  environment: Environment | null,
  provider: ProviderCode,
  context: FlagContext,
  ownership: readonly OwnershipCode[],
): RowFlag[] {
  const flags: RowFlag[] = [];
  const warm = isWarm(row, provider, context.now);
  if (hasStaleConfig(row, environment, context.installedPlugin)) flags.push("stale-config");
  if (!warm && isLeaking(row, provider, context.otherRowsOnSandbox, context.now)) flags.push("leaking");
  const inUse = isInUse(row, context.now);
  if (inUse) flags.push("in-use");
  if (isHostCleanup(row, context.now)) flags.push("host-cleanup");
  if (context.otherRowsOnSandbox.length > 0) flags.push("shared");
  if (isLoginSession(row, context.now)) flags.push("login-session");
  if (warm) flags.push("warm");
  if (inUse && runFailsNow(row, ownership)) flags.push("run-failing");
  return flags;
}

/**
 * The run or session that holds this lease fails now: the plugin checks ownership before it realizes the
 * workspace or runs a command ("CreateOS workspace requires a lease from this environment.", "CreateOS
 * execution requires a lease from this environment."), and a lease that names no sandbox has nothing to
 * run in. An edited API URL is no such failure: those calls go to the recorded URL.
 */
export function runFailsNow(row: LeaseRow, ownership: readonly OwnershipCode[]): boolean {
  return recordedSandboxId(row) === null || ownershipMismatch(ownership) !== null;
}

/**
 * A released reusable sandbox still running inside the auto-pause window its lease recorded: the newer
 * plugin leaves such a sandbox running at release for CreateOS to pause after that much idle time (it
 * was created with that window), and the next run may resume it. The window counts from the release;
 * past it the sandbox should have paused, and one still billing is a leak. Whichever generation released
 * it, a sandbox created with a window pauses by itself, so this is the reading that destroys less.
 */
export function isWarm(row: LeaseRow, provider: ProviderCode, now: Date): boolean {
  return warmUntil(row, provider) > now.getTime();
}

/** When a warm sandbox's auto-pause window ends (epoch ms), or -Infinity when it has none. */
export function warmUntil(row: LeaseRow, provider: ProviderCode): number {
  if (provider !== "running" || row.status !== "released" || row.releasedAt === null) return -Infinity;
  const metadata = metadataObject(row.metadata);
  if (metadata === null || recorded(metadata, "reuseLease") !== true) return -Infinity;
  const window = recordedAutoPause(metadata);
  const released = Date.parse(row.releasedAt);
  if (window === null || window <= 0 || Number.isNaN(released)) return -Infinity;
  return released + window * 1000;
}

/**
 * The next resume will expire this lease (and Paperclip will destroy its sandbox): a field its reuse
 * fingerprint covers no longer matches the environment, or its marker is not the UUID the plugin checks. Only for rows
 * the CreateOS plugin wrote; an orphan row has no config to drift from, but its marker still counts.
 */
export function hasStaleConfig(
  row: LeaseRow,
  environment: Environment | null,
  installed: InstalledPlugin | undefined,
): boolean {
  if (!mayBeResumed(row)) return false;
  const metadata = metadataObject(row.metadata);
  if (metadata === null || recorded(metadata, "provider") !== CREATEOS_PROVIDER) return false;
  if (!isWellFormedMarker(recorded(metadata, "marker"))) return true;
  return environment !== null && driftedFields(metadata, environment, installed).length > 0;
}

/** Statuses of a reusable lease Paperclip may still resume (`reusableLeaseCanBeResumed`). */
const RESUMABLE_STATUSES: readonly string[] = ["released", "retained", "active"];

/**
 * Only a lease Paperclip may resume can be expired by a resume: a reusable (`reuse_by_environment`) row
 * that is released, retained, or active under its run. An ephemeral lease is never resumed, so what its
 * recorded config says about a resume is nothing an operator needs, and it must not hide a leak.
 */
export function mayBeResumed(row: LeaseRow): boolean {
  return row.leasePolicy === "reuse_by_environment" && RESUMABLE_STATUSES.includes(row.status);
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
  now: Date,
): boolean {
  if (!(BILLING_PROVIDER_STATES as readonly string[]).includes(provider)) return false;
  if (!ENDED_STATUSES.includes(row.status) && row.cleanupStatus !== "failed") return false;
  return !isInUse(row, now) && !otherRowsOnSandbox.some(holdsSandbox);
}

/** Statuses of a row that someone still relies on: a run holds it, or it is kept on purpose. */
const HOLDING_LEASE_STATUSES: readonly string[] = ["active", "retained"];

/** This row still holds its sandbox (never destroy a sandbox under such a row without an override). */
export function holdsSandbox(row: LeaseRow): boolean {
  return HOLDING_LEASE_STATUSES.includes(row.status);
}

/**
 * Someone holds this lease now: a run (the plugin has commands in flight on its sandbox), or a session
 * that holds no run, such as a person's login.
 */
export function isInUse(row: LeaseRow, now: Date): boolean {
  if (isLoginSession(row, now)) return true;
  return row.status === "active" && row.heartbeatRunId !== null && !isStranded(row);
}

/**
 * A live session that holds no run: Paperclip's login services acquire an `active` lease with no
 * heartbeat run, no issue and no execution workspace (`adapter-login-lease.ts`, decision 199), with an
 * expiry the host sets, or none where a flow passes none. Having no run does not make such a row idle:
 * destroying its sandbox ends someone's sign-in. Once its expiry has passed it is no longer held.
 */
export function isLoginSession(row: LeaseRow, now: Date): boolean {
  if (row.status !== "active" || row.heartbeatRunId !== null) return false;
  if (row.issueId !== null || row.executionWorkspaceId !== null) return false;
  return row.expiresAt === null || Date.parse(row.expiresAt) > now.getTime();
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
