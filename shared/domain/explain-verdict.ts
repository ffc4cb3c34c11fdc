import { displayRecordedApiUrl } from "./api-url.js";
import { type OwnershipCode, PLUGIN_MESSAGES } from "./codes.js";
import { driftedFields } from "./config-drift.js";
import { warmUntil } from "./flags.js";
import type { ClassifiedLease, ProviderObservation, UnknownReason } from "./inventory.js";
import {
  displayValue,
  isWellFormedMarker,
  metadataObject,
  ownershipMetadata,
  recorded,
  recordedNumber,
} from "./lease-metadata.js";
import { isForeign, ownershipMismatch, recordedConfigParses } from "./ownership.js";
import {
  PENDING_CLEANUP_ATTEMPT_CAP,
  paperclipCallsAgain,
  pendingCleanupAttempts,
  runFailureOf,
} from "./paperclip-will.js";
import { sandboxStatusWords } from "./sandbox-status-words.js";

/**
 * What a row's verdict means and what to do about it, in one or two plain sentences: the first says why
 * the row has its headline (naming the deciding code's evidence), the second what the operator can do,
 * taken from the actions the verdict allows, so the advice can never offer what the guard refuses.
 */
export function explainVerdict(classified: ClassifiedLease): string {
  return explainVerdictParts(classified)
    .map((part) => (typeof part === "string" ? part : `"${part.text}"`))
    .join("");
}

/**
 * An environment or a company the explanation speaks of, by id: the console shows it by name with the id
 * on hover and links it to its rows; plain text quotes `text` (the name where the row carries it).
 */
export type ExplanationRef =
  | { ref: "environment"; sourceId: string; id: string; text: string }
  | { ref: "company"; id: string; text: string };
export type ExplanationPart = string | ExplanationRef;

/** The same sentences as `explainVerdict`, with every environment and company as a reference. */
export function explainVerdictParts(classified: ClassifiedLease): ExplanationPart[] {
  const { meaning, next } = verdictMeaning(classified);
  return next === null ? meaning : [...meaning, ` ${next}`];
}

/**
 * The explanation in its two halves: what is wrong (the run failing now first, then why the row has its
 * headline) and the next step the verdict allows, or why it allows none. `leaseStory` renders both.
 */
export function verdictMeaning(classified: ClassifiedLease): {
  meaning: ExplanationPart[];
  next: string | null;
} {
  const [meaning, next] = explanation(classified);
  const parts = typeof meaning === "string" ? [meaning] : [...meaning];
  const failure = runFailureOf(classified);
  if (failure !== null) {
    const who = failure.holder === "run" ? "The run holding this lease" : "The session holding this lease";
    parts.unshift(`${who} is failing now: ${failure.because}, so its workspace and every command fail. `);
  }
  return { meaning: parts, next };
}

type Explanation = [meaning: string | ExplanationPart[], next: string | null];

function explanation(classified: ClassifiedLease): Explanation {
  switch (classified.verdict.headline) {
    case "closed":
      return explainClosed(classified);
    case "foreign":
      return explainForeign(
        classified,
        classified.verdict.ownership.find(isForeign) ?? "foreign-environment",
      );
    case "stale":
      return explainStale(classified);
    case "leaking":
      return explainLeaking(classified);
    case "unknown":
      return explainUnknown(classified);
    case "ok":
      return explainOk(classified);
  }
}

/**
 * "So Paperclip will refuse to release it", said only where Paperclip will still call CreateOS about the
 * lease; otherwise what the plugin would do, and why Paperclip will not ask, as "Paperclip will" says.
 */
function refuses(classified: ClassifiedLease, where = " from this environment"): string {
  const status = displayValue(classified.lease.status);
  switch (paperclipCallsAgain(classified)) {
    case "yes":
      return `so Paperclip will refuse to release it${where}`;
    case "ended":
      return `so Paperclip's plugin would refuse to release it${where}, though Paperclip never calls CreateOS about a lease that is ${status} again`;
    case "no-environment":
      return `so Paperclip's plugin would refuse to release it${where}, though with its environment gone Paperclip can make no call for it`;
    case "environment-unread":
      return `so Paperclip's plugin would refuse to release it${where}, if Paperclip calls it (its environment could not be read, so whether Paperclip can make a call for it cannot be told)`;
    default:
      return `so Paperclip's plugin would refuse to release it${where}, if Paperclip ever released it (it defines no lease status "${status}")`;
  }
}

/** After a sentence saying the plugin fails every call: whether Paperclip will make one. */
function callsTail(classified: ClassifiedLease): string {
  const status = displayValue(classified.lease.status);
  switch (paperclipCallsAgain(classified)) {
    case "ended":
      return `, though Paperclip never calls CreateOS about a lease that is ${status} again`;
    case "no-environment":
      return ", though with its environment gone Paperclip can make no call for it";
    case "environment-unread":
      return ", if Paperclip calls it (its environment could not be read, so whether Paperclip can make a call for it cannot be told)";
    case "unknown-status":
      return `, if Paperclip ever calls it (it defines no lease status "${status}")`;
    default:
      return "";
  }
}

function explainClosed({ lease, provider, verdict }: ClassifiedLease): Explanation {
  const status = displayValue(lease.status);
  if (provider.actedOnBy?.effect === "delete") {
    const done = provider.actedOnBy.action === "release" ? "released (deleted)" : "destroyed";
    return [
      `Leasekeeper ${done} this sandbox (job ${displayValue(provider.actedOnBy.jobId)}) and the lease is ${status}; it is history.`,
      "Nothing needs doing.",
    ];
  }
  if (verdict.ownership.includes("no-sandbox-id")) {
    return [
      `This lease is ${status} and records no sandbox (Paperclip clears it when a resume finds the sandbox gone); it is history.`,
      "Nothing needs doing.",
    ];
  }
  const where =
    provider.code === "gone"
      ? `CreateOS lists its sandbox as ${displayValue(provider.rawStatus)} at ${whereAsked(provider)}`
      : `no account at ${whereAsked(provider)} lists its sandbox any more (CreateOS purges destroyed sandboxes)`;
  return [`This lease is ${status} and ${where}; it is history.`, "Nothing needs doing."];
}

function explainForeign(classified: ClassifiedLease, code: OwnershipCode): Explanation {
  const { lease, environment, sourceId } = classified;
  const metadata = ownershipMetadata(lease.metadata);
  const value = (key: string) => (metadata === null ? undefined : recorded(metadata, key));
  const named = (key: string) => {
    const text = displayValue(value(key));
    return text === null ? "nothing" : `"${text}"`;
  };
  if (code === "foreign-provider") {
    return [
      `This lease's metadata names the provider ${named("provider")}, not CreateOS, ${refuses(classified)}.`,
      next(classified),
    ];
  }
  if (code === "foreign-company") {
    const company = value("companyId");
    const theirs: ExplanationPart =
      typeof company === "string"
        ? { ref: "company", id: company, text: displayValue(company) ?? company }
        : named("companyId");
    const ours: ExplanationRef = {
      ref: "company",
      id: lease.companyId,
      text: displayValue(lease.companyId) ?? lease.companyId,
    };
    return [
      [
        "This lease's metadata names another company (",
        theirs,
        ") than the row's (",
        ours,
        `), ${refuses(classified)}.`,
      ],
      next(classified),
    ];
  }
  if (environment === null) {
    return [
      "This lease is listed under no environment Leasekeeper can see (it was deleted, or the row names none), so no environment can release it through Paperclip.",
      next(classified),
    ];
  }
  const recordedEnvironment = value("environmentId");
  const theirs: ExplanationPart =
    typeof recordedEnvironment === "string"
      ? {
          ref: "environment",
          sourceId,
          id: recordedEnvironment,
          text: displayValue(recordedEnvironment) ?? recordedEnvironment,
        }
      : named("environmentId");
  const listed = environmentRef(sourceId, environment);
  return [
    [
      "This lease's metadata names another environment (",
      theirs,
      ") than ",
      listed,
      `, ${refuses(classified)}.`,
    ],
    next(classified),
  ];
}

function environmentRef(sourceId: string, environment: { id: string; name: string }): ExplanationRef {
  return { ref: "environment", sourceId, id: environment.id, text: environment.name || environment.id };
}

function explainStale(classified: ClassifiedLease): Explanation {
  const { verdict, lease, environment, provider } = classified;
  if (verdict.ownership.includes("no-sandbox-id")) {
    const mismatch =
      ownershipMismatch(verdict.ownership) === null
        ? ""
        : `; its metadata does not match this environment either, ${refuses(classified, "")}`;
    return [
      `This lease records no sandbox id, so there is nothing at CreateOS to release or destroy${mismatch}.`,
      "Paperclip's own cleanup retires such a row; nothing needs doing here.",
    ];
  }
  if (verdict.ownership.includes("config-rejected")) {
    const metadata = metadataObject(lease.metadata);
    const rejection =
      metadata === null
        ? undefined
        : recordedConfigParses(metadata, classified.installedPlugin).find((parsed) => !parsed.ok);
    const message = rejection !== undefined && !rejection.ok ? ` ("${rejection.message}")` : "";
    return [
      `Paperclip's CreateOS plugin rejects the config this lease records${message}, so every call on it fails for ever: release, destroy, resume, its workspace and its commands${callsTail(classified)}.`,
      next(classified),
    ];
  }
  if (verdict.ownership.includes("api-url-not-origin")) {
    const metadata = metadataObject(lease.metadata);
    const recordedUrl = metadata === null ? null : displayRecordedApiUrl(recorded(metadata, "apiUrl"));
    return [
      `This lease records its API URL as "${recordedUrl ?? "nothing"}", not the bare origin Paperclip's plugin compares it with, so the plugin refuses every call on it for ever ("${PLUGIN_MESSAGES.foreignLease}")${callsTail(classified)}.`,
      next(classified),
    ];
  }
  if (verdict.ownership.includes("api-url-changed")) {
    const meaning: ExplanationPart[] = [
      ...(environment === null
        ? ["The environment's API URL"]
        : ["The API URL of environment ", environmentRef(classified.sourceId, environment)]),
      " was changed after this sandbox was acquired: Paperclip still releases it at the recorded URL, but will never resume it.",
    ];
    if (verdict.allowedActions.includes("release")) {
      return [meaning, `Release it at the old API URL (${whereAsked(provider)}) if no run needs it.`];
    }
    if (verdict.allowedActions.includes("destroy")) {
      return [meaning, `Destroy it at the old API URL (${whereAsked(provider)}).`];
    }
    return [meaning, next(classified)];
  }
  if (verdict.ownership.includes("metadata-missing")) {
    const metadata = metadataObject(lease.metadata);
    const why =
      metadata !== null && recorded(metadata, "providerMetadata") !== undefined
        ? "its fields are nested under providerMetadata, another schema"
        : "it is missing or not an object";
    return [
      `This lease carries no CreateOS ownership metadata Paperclip can read (${why}), ${refuses(classified, "")}.`,
      next(classified),
    ];
  }
  if (verdict.provider === "gone") {
    return [
      `CreateOS lists this sandbox as ${displayValue(provider.rawStatus)} at ${whereAsked(provider)}, so nothing of it is left running.`,
      "The row is history; nothing needs doing.",
    ];
  }
  const metadata = metadataObject(lease.metadata);
  const drifted =
    metadata === null || environment === null
      ? []
      : driftedFields(metadata, environment, classified.installedPlugin);
  const consequence = ", so its next resume will expire it and Paperclip will destroy the sandbox.";
  if (metadata === null || environment === null || !isWellFormedMarker(recorded(metadata, "marker"))) {
    return [`This lease's workspace marker is missing or malformed${consequence}`, next(classified)];
  }
  return [
    [
      `The ${drifted.join(", ")} of environment `,
      environmentRef(classified.sourceId, environment),
      ` changed since this sandbox was acquired${consequence}`,
    ],
    next(classified),
  ];
}

function explainLeaking(classified: ClassifiedLease): Explanation {
  const { lease, verdict } = classified;
  const meaning =
    lease.cleanupStatus === "failed"
      ? `Paperclip's cleanup of this lease failed and CreateOS still shows the sandbox ${sandboxStatusWords(verdict.provider)}, billing compute.`
      : `CreateOS shows the sandbox ${sandboxStatusWords(verdict.provider)}, billing compute, although the lease is ${displayValue(lease.status)}.`;
  return [meaning, next(classified)];
}

/** Why a sandbox's state could not be read, as the start of a sentence about the origin asked. */
function unreadable(reason: UnknownReason, origin: string): string {
  switch (reason) {
    case "no-credential":
      return `Leasekeeper has no CreateOS key for ${origin}`;
    case "unauthorized":
      return `CreateOS rejected the key for ${origin} as not valid`;
    case "forbidden":
      return `CreateOS refused the key for ${origin}, which may not list sandboxes there`;
    case "network":
      return `The network failed while listing sandboxes at ${origin}`;
    case "timeout":
      return `Listing sandboxes at ${origin} timed out`;
    case "rate-limited":
      return `CreateOS rate-limited the listing at ${origin}`;
    case "server-error":
      return `CreateOS answered the listing at ${origin} with a server error`;
    case "invalid-response":
      return `CreateOS returned an invalid listing at ${origin}`;
    case "invalid-url":
      return "The lease's API URL breaks CreateOS's URL rule, so there is nowhere to ask";
    case "no-sandbox-id":
      return "The lease names no sandbox to look up";
    case "unrecognized-status":
      return `CreateOS reports a status Leasekeeper does not know at ${origin}`;
  }
}

function explainUnknown(classified: ClassifiedLease): Explanation {
  const { provider, verdict } = classified;
  const origin = whereAsked(provider);
  // A sandbox whose state could not be read is said first, as the headline says it first.
  const sandboxRead = provider.code !== "unknown" && provider.code !== "not-visible";
  if (sandboxRead && verdict.ownership.includes("environment-unread")) {
    return explainEnvironmentUnread(classified);
  }
  if (provider.code === "not-visible") {
    return [
      `No CreateOS account Leasekeeper has a key for lists this sandbox at ${origin}: it was purged, or it belongs to another account.`,
      "Add that account's key to act on it; Leasekeeper never touches a sandbox it cannot see.",
    ];
  }
  return [
    `${whyUnknown(provider)}, so this sandbox's state is unknown, and unknown is never taken for gone.`,
    "Nothing will be done to it until its state can be read.",
  ];
}

/**
 * The row is listed under an environment its source holds but could not read: whether the plugin would
 * accept the lease depends on that environment, so it is not said either way.
 */
function explainEnvironmentUnread(classified: ClassifiedLease): Explanation {
  const { lease, sourceId } = classified;
  const environmentId = lease.environmentId ?? "";
  const listed: ExplanationRef = {
    ref: "environment",
    sourceId,
    id: environmentId,
    text: displayValue(environmentId) ?? environmentId,
  };
  return [
    [
      "This lease is listed under environment ",
      listed,
      `, which ${sourceId} could not read, so whether Paperclip's plugin would accept it cannot be told.`,
    ],
    next(classified),
  ];
}

function whyUnknown(provider: ProviderObservation): string {
  const reason = provider.unknownReason ?? "no-credential";
  const status = reason === "unrecognized-status" ? ` ("${displayValue(provider.rawStatus)}")` : "";
  return `${unreadable(reason, whereAsked(provider))}${status}`;
}

function explainOk(classified: ClassifiedLease): Explanation {
  const { lease, verdict } = classified;
  if (verdict.flags.includes("host-cleanup")) {
    const metadata = metadataObject(lease.metadata);
    const until = metadata === null ? Number.NaN : recordedNumber(metadata, "pendingCleanupLeaseExpiresAtMs");
    // Date accepts ±8.64e15 ms; a hand-edited claim beyond that has no printable expiry.
    const when = Math.abs(until) <= 8.64e15 ? ` until ${new Date(until).toISOString()}` : "";
    return [
      `Paperclip's cleanup sweep holds a claim on this lease${when}.`,
      "Leave it to Paperclip until then.",
    ];
  }
  if (verdict.flags.includes("login-session")) {
    const until = lease.expiresAt === null ? "" : ` until ${lease.expiresAt}`;
    return [
      `A login session holds this lease${until} (an active lease with no run, no issue and no workspace, as Paperclip's login services acquire them), and CreateOS shows the sandbox ${sandboxStatusWords(verdict.provider)}.`,
      "Leave it until the session ends; destroying it ends someone's sign-in, so acting on it needs an explicit override.",
    ];
  }
  if (verdict.flags.includes("in-use")) {
    return [
      `A run is using this lease right now and CreateOS shows the sandbox ${sandboxStatusWords(verdict.provider)}.`,
      "Leave it until the run ends; acting on it needs an explicit override.",
    ];
  }
  if (verdict.flags.includes("warm")) {
    const until = new Date(warmUntil(lease, verdict.provider)).toISOString();
    return [
      `Paperclip's plugin left this released reusable sandbox running for CreateOS to pause once idle, by ${until} at the latest; the next run of the same agent and workspace may resume it before then.`,
      "Nothing needs doing; if it is still running after that, it is a leak.",
    ];
  }
  if (lease.status === "active") {
    return [
      "This lease is active but no run holds it; Paperclip's sweep moves such a lease to pending_cleanup within about five minutes.",
      "Let Paperclip act first.",
    ];
  }
  if (lease.status === "pending_cleanup") {
    const { attempts, escalated } = pendingCleanupAttempts(lease.metadata);
    if (escalated) {
      return [
        `Paperclip's cleanup sweep has failed ${Math.max(attempts, PENDING_CLEANUP_ATTEMPT_CAP)} times on this lease and escalated it to an operator; CreateOS shows the sandbox ${sandboxStatusWords(verdict.provider)}.`,
        verdict.allowedActions.includes("destroy")
          ? "Destroy the sandbox here if nobody needs it."
          : next(classified),
      ];
    }
    const tried = attempts > 0 ? ` (it has tried ${attempts} time${attempts === 1 ? "" : "s"})` : "";
    return [
      `Paperclip's cleanup sweep will retry this lease${tried}, and CreateOS shows the sandbox ${sandboxStatusWords(verdict.provider)}.`,
      "Leave it to Paperclip unless the retries keep failing; then destroy the sandbox here.",
    ];
  }
  const meaning = `This lease matches its environment and CreateOS shows the sandbox ${sandboxStatusWords(verdict.provider)}.`;
  const shared = verdict.refusals.destroy?.reason === "shared" ? verdict.refusals.destroy.message : null;
  return [meaning, shared ?? "Nothing needs doing."];
}

/** The next step a verdict allows, or the reason it allows none. */
function next({ verdict, provider }: ClassifiedLease): string | null {
  if (verdict.allowedActions.includes("release")) {
    return verdict.headline === "leaking"
      ? "Release it to stop the billing."
      : "Release it if no run needs it.";
  }
  if (verdict.allowedActions.includes("destroy")) {
    return verdict.destroyConfirmation === "typed-id"
      ? `If nobody needs it, destroy it at ${whereAsked(provider)} by typing its sandbox id back.`
      : "Destroy it if nobody needs it.";
  }
  const refusal = verdict.refusals.destroy ?? verdict.refusals.release;
  // The generic refusal would not say which origin needs a key; the observation does.
  if (refusal?.reason === "unknown") {
    return `${whyUnknown(provider)}, so nothing will be done to it until its state can be read.`;
  }
  if (refusal?.reason === "not-visible") {
    return `No CreateOS account Leasekeeper has a key for lists it at ${whereAsked(provider)}; add the key of the account that owns it.`;
  }
  return refusal?.message ?? null;
}

/** The origin asked, as it may appear in a sentence: clipped, since a valid origin can be 100 kB long. */
function whereAsked(provider: ProviderObservation): string {
  return displayValue(provider.origin) ?? "its API URL";
}
