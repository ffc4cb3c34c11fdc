import {
  type ActionKind,
  type OwnershipCode,
  PLUGIN_MESSAGES,
  type ProviderCode,
  type RowFlag,
} from "./codes.js";
import { holdsSandbox } from "./flags.js";
import type { LeaseVerdict, Refusal } from "./inventory.js";
import { type OwnershipMismatch, ownershipMismatch } from "./ownership.js";
import type { LeaseRow } from "./paperclip.js";

/**
 * The sentence an operator reads for each refusal that is not the plugin's own. Fixed text, so the UI,
 * the CLI and the audit log all say the same thing and tests can pin it.
 */
export const REFUSAL_MESSAGES = {
  noSandboxId: "This lease records no sandbox id, so there is nothing at CreateOS to act on.",
  hostCleanup: "Paperclip's cleanup sweep is working on this lease; wait until its claim expires.",
  unknown:
    "Leasekeeper could not read this sandbox's state at CreateOS, and it never acts on a sandbox it cannot see.",
  notVisible:
    "No CreateOS account Leasekeeper has a key for lists this sandbox; add the key of the account that owns it.",
  gone: "CreateOS already lists this sandbox as destroyed or failed; there is nothing left to do.",
  inUse:
    "A run is using this sandbox right now and acting on it would kill the run's commands; wait for the run to end, or override if it is stuck.",
  shared:
    "Another lease on this sandbox is active or retained and acting on it would break that lease too; override only if you know that lease is finished.",
  closed:
    "This lease is over and nothing of it lives at CreateOS; it is history, and there is nothing to do.",
  configRejected:
    "Paperclip's CreateOS plugin rejects the config recorded in this lease, so every call on it fails; only a destroy at its recorded URL cleans it up.",
  loginSession:
    "A person's login session holds this sandbox, and destroying it ends their sign-in; wait until the session ends, or override if it is stuck.",
  unreadPart:
    "A part of the sources that could not be read may name this sandbox, as a live lease on it, and acting on it would break that lease too; override only if you know no live lease holds it.",
  environmentUnread:
    "This lease's environment could not be read from its source, so whether Paperclip's plugin would accept a release cannot be told; only a destroy at its recorded URL, typing its sandbox id back, is offered.",
} as const;

export interface ActionEvidence {
  ownership: readonly OwnershipCode[];
  provider: ProviderCode;
  flags: readonly RowFlag[];
  otherRowsOnSandbox: readonly LeaseRow[];
  /** The row is history (headline `closed`): no action is offered. */
  closed?: boolean;
}

export type ActionDecision = Pick<
  LeaseVerdict,
  "allowedActions" | "overridableActions" | "destroyConfirmation" | "refusals"
>;

/**
 * What an operator may do with a row. Each action is either allowed, allowed only with an
 * explicit override (a run or another live lease depends on the sandbox), or refused with one reason.
 */
export function decideActions(evidence: ActionEvidence): ActionDecision {
  const decision: ActionDecision = {
    allowedActions: [],
    overridableActions: [],
    destroyConfirmation: null,
    refusals: {},
  };
  if (evidence.closed === true) {
    decision.refusals = { release: refusal("closed"), destroy: refusal("closed") };
    return decision;
  }
  const override = overrideNeeded(evidence);
  settle(decision, "release", releaseBlock(evidence), override);
  const destroyBlocked = destroyBlock(evidence);
  settle(decision, "destroy", destroyBlocked, override);
  if (destroyBlocked === null) {
    // Also set under an override, so the dialog knows what to ask for once the override is given.
    decision.destroyConfirmation = evidence.ownership.includes("owned") ? "click" : "typed-id";
  }
  return decision;
}

/** An action is refused, or needs the override, or is allowed. */
function settle(
  decision: ActionDecision,
  action: ActionKind,
  block: Refusal | null,
  override: Refusal | null,
): void {
  if (block !== null) {
    decision.refusals[action] = block;
  } else if (override !== null) {
    decision.overridableActions.push(action);
    decision.refusals[action] = override;
  } else {
    decision.allowedActions.push(action);
  }
}

/**
 * Release has the plugin's semantics, so it is refused where the plugin would refuse (a lease with no
 * sandbox id first, as the plugin returns before checking ownership), and where this program cannot see
 * what it would act on (its sandbox's state, or the environment the plugin would be called with). A gone
 * sandbox has nothing to pause, and a pause of a destroyed sandbox fails.
 * An edited API URL is no refusal: the host releases with the recorded config, at the recorded URL.
 */
function releaseBlock(evidence: ActionEvidence): Refusal | null {
  if (evidence.ownership.includes("no-sandbox-id")) return refusal("no-sandbox-id");
  const mismatch = ownershipMismatch(evidence.ownership);
  if (mismatch !== null) return FOREIGN_REFUSALS[mismatch];
  if (evidence.ownership.includes("environment-unread")) return refusal("environment-unread");
  return blindOrClaimed(evidence) ?? (evidence.provider === "gone" ? refusal("gone") : null);
}

/**
 * Destroy goes straight to CreateOS, so it is possible for rows the plugin refuses, as a forced destroy of
 * a sandbox a credential can see alive. For a row this environment owns, destroying a gone sandbox is a
 * harmless idempotent DELETE and stays allowed; for anyone else's row there is nothing to do.
 */
function destroyBlock(evidence: ActionEvidence): Refusal | null {
  if (evidence.ownership.includes("no-sandbox-id")) return refusal("no-sandbox-id");
  const blocked = blindOrClaimed(evidence);
  if (blocked !== null) return blocked;
  if (evidence.provider === "gone" && !evidence.ownership.includes("owned")) return refusal("gone");
  return null;
}

/** Never act beside Paperclip's sweep, nor on a sandbox whose state could not be read. */
function blindOrClaimed({ flags, provider }: ActionEvidence): Refusal | null {
  if (flags.includes("host-cleanup")) return refusal("host-cleanup");
  if (provider === "unknown" || provider === "not-visible") return refusal(provider);
  return null;
}

/**
 * A run, or another live lease, depends on this sandbox: acting on it is possible but needs a second,
 * explicit decision. Both release (which may delete, and pauses under a running command) and destroy.
 */
function overrideNeeded({ flags, otherRowsOnSandbox }: ActionEvidence): Refusal | null {
  if (flags.includes("login-session")) return refusal("login-session");
  if (flags.includes("in-use")) return refusal("in-use");
  if (otherRowsOnSandbox.some(holdsSandbox)) return refusal("shared");
  return null;
}

const MESSAGE_BY_REASON = {
  "no-sandbox-id": REFUSAL_MESSAGES.noSandboxId,
  "host-cleanup": REFUSAL_MESSAGES.hostCleanup,
  unknown: REFUSAL_MESSAGES.unknown,
  "not-visible": REFUSAL_MESSAGES.notVisible,
  gone: REFUSAL_MESSAGES.gone,
  "in-use": REFUSAL_MESSAGES.inUse,
  "login-session": REFUSAL_MESSAGES.loginSession,
  shared: REFUSAL_MESSAGES.shared,
  closed: REFUSAL_MESSAGES.closed,
  "environment-unread": REFUSAL_MESSAGES.environmentUnread,
} as const;

type FixedReason = keyof typeof MESSAGE_BY_REASON;

/** What decides a refusal; the audit log keeps it beside the message. */
export type RefusalReason = OwnershipMismatch | FixedReason;

/** Refusals are values; each is made once and frozen, so 20,000 verdicts share a handful of them. */
function frozenRefusals<Reason extends string>(messages: Record<Reason, string>): Record<Reason, Refusal> {
  const entries = Object.entries(messages).map(([reason, message]) => [
    reason,
    Object.freeze({ reason, message }),
  ]);
  return Object.fromEntries(entries) as Record<Reason, Refusal>;
}

const FIXED_REFUSALS = frozenRefusals(MESSAGE_BY_REASON);

/** The plugin refuses every metadata mismatch with one message; the reason says which field decided. */
const FOREIGN_REFUSALS = frozenRefusals<OwnershipMismatch>({
  "foreign-company": PLUGIN_MESSAGES.foreignLease,
  "foreign-environment": PLUGIN_MESSAGES.foreignLease,
  "foreign-provider": PLUGIN_MESSAGES.foreignLease,
  "metadata-missing": PLUGIN_MESSAGES.foreignLease,
  "api-url-not-origin": PLUGIN_MESSAGES.foreignLease,
  "config-rejected": REFUSAL_MESSAGES.configRejected,
});

function refusal(reason: FixedReason): Refusal {
  return FIXED_REFUSALS[reason];
}
