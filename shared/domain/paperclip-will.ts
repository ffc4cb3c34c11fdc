import { displayRecordedApiUrl } from "./api-url.js";
import { KNOWN_LEASE_STATUSES, PLUGIN_MESSAGES } from "./codes.js";
import { driftedFields } from "./config-drift.js";
import { warmUntil } from "./flags.js";
import type { ClassifiedLease, UnknownReason } from "./inventory.js";
import { displayValue, metadataObject, recorded, recordedNumber } from "./lease-metadata.js";
import { ownershipMismatch, recordedConfigParses } from "./ownership.js";
import {
  predictRelease,
  type ReleasePrediction,
  recordedAutoPause,
  shortVersion,
} from "./plugin-generations.js";
import { recordedSandboxId } from "./sandbox-id.js";

/** Listing failures that say the recorded URL does not answer, as opposed to a key or a quota problem. */
const UNREACHABLE: readonly UnknownReason[] = ["network", "timeout", "server-error", "invalid-url"];

/** After this many failed sweep attempts Paperclip escalates (`PENDING_CLEANUP_SWEEP_ATTEMPT_CAP`). */
export const PENDING_CLEANUP_ATTEMPT_CAP = 5;

type Judged = Pick<ClassifiedLease, "lease" | "environment" | "verdict" | "provider" | "installedPlugin">;

/**
 * What Paperclip itself will do with this lease, in one sentence or two: the host's release, resume and
 * cleanup paths applied to the row as it stands, as the plugin generation that acts on it next does
 * them (decision 199). Release and cleanup use the config recorded in the lease; resume uses the
 * environment's current config. A run that holds a lease the plugin refuses is failing now, so that
 * comes first.
 */
export function paperclipWill(classified: Judged): string {
  const { lease } = classified;
  const calls = paperclipCallsAgain(classified);
  if (calls === "closed")
    return "Nothing: the lease is over and nothing of it is left at CreateOS; it is history.";
  if (calls === "unknown-status") {
    const mismatch = ownershipMismatch(classified.verdict.ownership);
    const refusal =
      mismatch === null
        ? ""
        : mismatch === "config-rejected"
          ? " If it ever releases the lease, the plugin rejects the config the lease records and the call fails."
          : ` If it ever releases the lease, the plugin refuses it with "${PLUGIN_MESSAGES.foreignLease}"`;
    return `Nothing Leasekeeper can predict: Paperclip defines no lease status "${displayValue(lease.status)}".${refusal}`;
  }
  const failing = runFailure(classified);
  const rest = afterRun(classified);
  return failing === null ? rest : `${failing} ${rest}`;
}

/**
 * Whether Paperclip will call CreateOS about this lease again, the one fact the red box and "Paperclip
 * will" both rest on: `yes` (a release, resume or cleanup is still to come), `ended` (expired, failed, or
 * released and not reusable), `closed` (history), `no-environment` (its environment is gone, so no plugin
 * call can be made), `environment-unread` (its environment exists but could not be read, so whether a
 * call can be made cannot be told) or `unknown-status` (Paperclip defines no such status, so nothing can
 * be predicted).
 */
export type PaperclipCallsAgain =
  | "yes"
  | "ended"
  | "closed"
  | "no-environment"
  | "environment-unread"
  | "unknown-status";

export function paperclipCallsAgain(
  classified: Pick<Judged, "lease" | "environment" | "verdict">,
): PaperclipCallsAgain {
  const { lease, environment, verdict } = classified;
  if (verdict.headline === "closed") return "closed";
  if (!(KNOWN_LEASE_STATUSES as readonly string[]).includes(lease.status)) {
    return environment === null ? withoutEnvironment(lease) : "unknown-status";
  }
  if (lease.status === "expired" || lease.status === "failed") return "ended";
  if (lease.status === "released" && lease.leasePolicy !== "reuse_by_environment") return "ended";
  return environment === null ? withoutEnvironment(lease) : "yes";
}

/** A row read without its environment: one gone, or one its source holds but could not read. */
function withoutEnvironment(lease: Judged["lease"]): "no-environment" | "environment-unread" {
  return lease.environmentUnread === true ? "environment-unread" : "no-environment";
}

/** The plugin refuses a release of this lease as the host makes it (or fails it on the recorded config). */
export function pluginRefusesRelease(classified: Pick<Judged, "verdict">): boolean {
  return ownershipMismatch(classified.verdict.ownership) !== null;
}

/** The plugin's refusals a run meets on a lease it does not own, verbatim. */
export const RUN_FAILURE_MESSAGES = {
  workspace: "CreateOS workspace requires a lease from this environment.",
  execution: "CreateOS execution requires a lease from this environment.",
} as const;

export interface RunFailure {
  /** Who fails: the run, or the login session that holds the lease. */
  holder: "run" | "session";
  /** The plugin's messages the holder meets, verbatim. */
  messages: string[];
  /** Why, in one clause. */
  because: string;
}

/**
 * How the run (or session) that holds this lease fails now, or null when none does: the plugin checks
 * the lease before it realizes the workspace or runs any command, and a lease that names no sandbox has
 * nothing to run in.
 */
export function runFailureOf(classified: Judged): RunFailure | null {
  const { lease, verdict } = classified;
  if (!verdict.flags.includes("run-failing")) return null;
  const because =
    recordedSandboxId(lease) === null
      ? "the lease names no sandbox"
      : ownershipMismatch(verdict.ownership) === "config-rejected"
        ? "the plugin rejects the config the lease records"
        : "the lease's metadata does not match this environment";
  return {
    holder: verdict.flags.includes("login-session") ? "session" : "run",
    messages: [RUN_FAILURE_MESSAGES.workspace, RUN_FAILURE_MESSAGES.execution],
    because,
  };
}

function runFailure(classified: Judged): string | null {
  const failure = runFailureOf(classified);
  if (failure === null) return null;
  const who = failure.holder === "run" ? "The run holding it" : "The session holding it";
  return `${who} is failing now, because ${failure.because}: its workspace fails ("${failure.messages[0]}") and so does every command ("${failure.messages[1]}").`;
}

function afterRun(classified: Judged): string {
  const { lease, environment, verdict, provider } = classified;
  const status = lease.status;
  if (status === "expired" || status === "failed") {
    return `Nothing: the lease is ${status}, and Paperclip never calls CreateOS about it again.`;
  }
  const reusable = lease.leasePolicy === "reuse_by_environment";
  const callsAgain = status !== "released" || reusable;
  if (callsAgain && environment === null) {
    if (lease.environmentUnread === true) {
      const unread =
        "Nothing Leasekeeper can predict: the lease's environment could not be read from its source, so whether Paperclip can release, resume or clean it up cannot be told";
      return ownershipMismatch(verdict.ownership) === null
        ? `${unread}, nor whether its plugin would accept the lease.`
        : `${unread}; if it does, the plugin refuses it with "${PLUGIN_MESSAGES.foreignLease}"`;
    }
    return "Nothing it can finish: the lease's environment is gone, so no plugin call can be made for it and only a destroy at its recorded URL cleans it up.";
  }
  const origin = displayValue(provider.origin) ?? "its recorded URL";
  if (callsAgain) {
    const broken = recordedConfigBreakage(classified, origin);
    if (broken !== null) return broken;
    if (ownershipMismatch(verdict.ownership) !== null) {
      return `Refuses it with "${PLUGIN_MESSAGES.foreignLease}" whenever it releases, resumes or cleans it up.`;
    }
  }
  switch (status) {
    case "pending_cleanup":
      return pendingCleanup(classified, origin);
    case "active":
      if (verdict.flags.includes("login-session")) {
        const until = lease.expiresAt === null ? "" : ` (until ${lease.expiresAt})`;
        return `Keeps it while the login session lasts${until}; the login service then releases it, which ${releaseSentence(classified)}.`;
      }
      if (verdict.flags.includes("in-use")) {
        return `Releases it when the run ends, which ${releaseSentence(classified, origin)}.`;
      }
      return "Moves it to pending_cleanup at its next sweep (no run holds it), then destroys the sandbox.";
    case "retained":
      return "Keeps it: a retained lease waits until someone releases it.";
    default:
      return released(classified, reusable);
  }
}

/** Every call fails on a lease whose recorded config the plugin rejects, or whose URL is not its origin. */
function recordedConfigBreakage(classified: Judged, origin: string): string | null {
  const { lease, verdict, installedPlugin } = classified;
  const metadata = metadataObject(lease.metadata);
  if (metadata === null) return null;
  const cleanup = `only a destroy at its recorded URL (${origin}) cleans it up.`;
  if (verdict.ownership.includes("config-rejected")) {
    const rejection = recordedConfigParses(metadata, installedPlugin).find((parsed) => !parsed.ok);
    const message = rejection !== undefined && !rejection.ok ? ` ("${rejection.message}")` : "";
    return `Fails every call on it: its CreateOS plugin rejects the config the lease records${message}, so release, destroy and resume all throw, for ever; ${cleanup}`;
  }
  if (verdict.ownership.includes("api-url-not-origin")) {
    const recordedUrl = displayRecordedApiUrl(recorded(metadata, "apiUrl")) ?? "nothing";
    return `Fails every call on it: the lease records its API URL as "${recordedUrl}", not the bare origin the plugin compares it with, so release, destroy and resume all refuse it with "${PLUGIN_MESSAGES.foreignLease}", for ever; ${cleanup}`;
  }
  return null;
}

function pendingCleanup(classified: Judged, origin: string): string {
  const { lease, verdict, provider } = classified;
  if (verdict.flags.includes("host-cleanup"))
    return "Is cleaning it up now: its sweep holds a claim on the lease.";
  const { attempts, escalated } = pendingCleanupAttempts(lease.metadata);
  const tried = attempts > 0 ? ` It has tried ${attempts} time${attempts === 1 ? "" : "s"}.` : "";
  if (escalated) {
    return `Has escalated it to an operator after ${Math.max(attempts, PENDING_CLEANUP_ATTEMPT_CAP)} failed cleanup attempts: older Paperclip hosts stop retrying and leave it for manual cleanup, newer ones keep retrying every 30 minutes (which this instance runs is not known here).`;
  }
  if (recordedSandboxId(lease) === null) {
    return `Marks it expired at its next sweep without calling CreateOS: the lease names no sandbox.${tried}`;
  }
  if (
    provider.code === "unknown" &&
    provider.unknownReason !== null &&
    UNREACHABLE.includes(provider.unknownReason)
  ) {
    return `Keeps retrying cleanup against an unreachable recorded URL (${origin}).${tried}`;
  }
  const left = PENDING_CLEANUP_ATTEMPT_CAP - attempts;
  const escalation =
    left > 0 ? ` It escalates to an operator after ${left} more failed attempt${left === 1 ? "" : "s"}.` : "";
  return `Retries its cleanup at the next sweep: destroys the sandbox at the recorded URL (${origin}) and marks the lease expired.${tried}${escalation}`;
}

/**
 * How many sweep attempts Paperclip recorded (`pendingCleanupRetryAttempts`), and whether it escalated
 * (`pendingCleanupRetryCapWarned`, or the cap reached).
 */
export interface PendingCleanupAttempts {
  attempts: number;
  escalated: boolean;
}

export function pendingCleanupAttempts(metadata: unknown): PendingCleanupAttempts {
  const object = metadataObject(metadata);
  if (object === null) return { attempts: 0, escalated: false };
  const raw = recordedNumber(object, "pendingCleanupRetryAttempts");
  const attempts = Number.isInteger(raw) && raw > 0 ? raw : 0;
  const escalated =
    recorded(object, "pendingCleanupRetryCapWarned") === true || attempts >= PENDING_CLEANUP_ATTEMPT_CAP;
  return { attempts, escalated };
}

function released(classified: Judged, reusable: boolean): string {
  const { lease, environment, verdict, provider, installedPlugin } = classified;
  if (!reusable) return "Nothing: the lease is released, and Paperclip never calls CreateOS about it again.";
  if (verdict.ownership.includes("api-url-changed")) {
    return "Expires it at the next resume: the environment's API URL changed, so the resume fails and Paperclip destroys the sandbox at the recorded URL.";
  }
  if (verdict.flags.includes("stale-config")) {
    const metadata = metadataObject(lease.metadata);
    const fields =
      metadata === null || environment === null ? [] : driftedFields(metadata, environment, installedPlugin);
    const which = fields.length > 0 ? ` (${fields.join(", ")})` : " (its workspace marker)";
    return `Expires it at the next resume because its recorded config no longer matches${which}: Paperclip destroys the sandbox instead of resuming it.`;
  }
  if (environment !== null && environment.config.reuseLease === false) {
    return "Nothing: the environment no longer reuses leases, so Paperclip never resumes this one and its sandbox stays as it is.";
  }
  if (verdict.flags.includes("warm")) {
    const metadata = metadataObject(lease.metadata);
    const window = metadata === null ? null : recordedAutoPause(metadata);
    const until = new Date(warmUntil(lease, provider.code)).toISOString();
    return `Keeps it warm for the next run of the same agent in the same workspace: the plugin left the sandbox running at release, and CreateOS pauses it after ${window} s without activity (by ${until} at the latest).`;
  }
  return "Resumes it for the next run of the same agent in the same workspace; until then the sandbox stays as it is.";
}

/** What a release of this lease does at CreateOS, as a clause: "pauses the sandbox at … (…)". */
export function releaseSentence(
  classified: Pick<Judged, "lease" | "installedPlugin">,
  where?: string,
): string {
  const prediction = releasePrediction(classified);
  if (prediction.outcome === "nothing") {
    return recordedSandboxId(classified.lease) === null
      ? "makes no call to CreateOS, since the lease names no sandbox"
      : "makes no call to CreateOS, since the plugin refuses the config the lease records";
  }
  const at = where === undefined ? "" : ` at ${where}`;
  return `${RELEASE_CLAUSES[prediction.outcome](classified.lease.metadata)}${at}${releaseBasis(prediction)}`;
}

export function releasePrediction({
  lease,
  installedPlugin,
}: Pick<Judged, "lease" | "installedPlugin">): ReleasePrediction {
  return predictRelease(installedPlugin, recordedSandboxId(lease), lease.metadata);
}

const RELEASE_CLAUSES: Record<ReleasePrediction["outcome"], (metadata: unknown) => string> = {
  nothing: () => "makes no call to CreateOS",
  pause: () => "pauses the sandbox",
  "keep-warm": (metadata) => {
    const object = metadataObject(metadata);
    const window = object === null ? null : recordedAutoPause(object);
    return `leaves the sandbox running for CreateOS to pause after ${window ?? "its"} s idle`;
  },
  delete: () => "deletes the sandbox",
};

/** The same outcomes after "would". */
const BASE_CLAUSES: Record<ReleasePrediction["outcome"], string> = {
  nothing: "make no call to CreateOS",
  pause: "pause it",
  "keep-warm": "leave it running for CreateOS to pause",
  delete: "delete it",
};

/**
 * Whose release it is: the installed plugin's, or, where that is not known, the generation whose release
 * destroys least, with what the others would do instead.
 */
function releaseBasis(prediction: ReleasePrediction): string {
  const version = shortVersion(prediction.by);
  if (prediction.told) return ` (as the installed plugin ${version} does)`;
  if (prediction.otherwise.length === 0) return "";
  const byOutcome = new Map<ReleasePrediction["outcome"], string[]>();
  for (const { by, outcome } of prediction.otherwise) {
    byOutcome.set(outcome, [...(byOutcome.get(outcome) ?? []), shortVersion(by)]);
  }
  const others = [...byOutcome]
    .map(([outcome, versions]) => {
      const who = versions.length === 1 ? `plugin ${versions[0]}` : `plugins ${versions.join(" and ")}`;
      return `${who} would ${BASE_CLAUSES[outcome]}`;
    })
    .join("; ");
  return `, as plugin ${version} does (${others} instead; which plugin the instance runs is not known here, so the reading that destroys least is taken)`;
}

/**
 * What the lease's metadata holds under reuseLease, as text: `true` or `false`, a string quoted, other
 * values named; null when it holds nothing there (the key absent or null, or the metadata lost).
 */
export function recordedReuseLeaseText(metadata: unknown): string | null {
  const object = metadataObject(metadata);
  if (object === null) return null;
  const value = recorded(object, "reuseLease");
  // Quoted, so that the string "true" the host reads as off is not shown as the boolean.
  if (typeof value === "string") return JSON.stringify(displayValue(value));
  return displayValue(value);
}

/** The reuseLease the lease recorded, as the host reads it from the metadata: anything but `true` is off. */
export function recordedReuseLease(metadata: unknown): boolean | null {
  const object = metadataObject(metadata);
  return object === null ? null : recorded(object, "reuseLease") === true;
}
