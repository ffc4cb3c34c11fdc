import type { ActionEffect, OverrideReason } from "../../../../shared/domain/actions.js";
import { REFUSAL_MESSAGES } from "../../../../shared/domain/allowed-actions.js";
import {
  type ActionKind,
  type DestroyConfirmation,
  LIVE_PROVIDER_STATES,
  PLUGIN_MESSAGES,
  type ProviderCode,
} from "../../../../shared/domain/codes.js";
import type { LeaseVerdict, ProviderObservation, Refusal } from "../../../../shared/domain/inventory.js";
import { pluginAcceptsRelease } from "../../../../shared/domain/ownership.js";
import type { Environment, LeaseRow } from "../../../../shared/domain/paperclip.js";
import { type InstalledPlugin, predictRelease } from "../../../../shared/domain/plugin-generations.js";
import { isValidSandboxId, recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";

/**
 * Whether an item may be acted on, and how. The verdict (shared/domain) says what is allowed; these
 * rules are a second, independent line in main that refuses whatever must never reach CreateOS, whatever
 * the verdict says: no sandbox id or a malformed one, a state we could not read or cannot see, a sandbox
 * Paperclip's sweep holds, no credential for its origin. They also decide what the verdict leaves open:
 * the effect (release follows the `reuseLease` the lease recorded), how a destroy is confirmed (typed
 * id for anything but an owned row), and whether an explicit override is needed (in use, or another row
 * `active`/`retained` on the same sandbox).
 */

export interface LeaseFacts {
  lease: LeaseRow;
  environment: Environment | null;
  verdict: LeaseVerdict;
  provider: ProviderObservation;
  /** Other rows naming the same sandbox, as read now. */
  otherRows: readonly LeaseRow[];
  /** The CreateOS plugin installed on the row's Paperclip instance, where its source can tell. */
  installedPlugin?: InstalledPlugin | undefined;
}

export interface UntrackedFacts {
  sandboxId: string;
  origin: string;
  credential: string;
  status: string;
}

export type { OverrideReason };

export type ItemDecision =
  | {
      decision: "do";
      effect: ActionEffect;
      confirmation: DestroyConfirmation | null;
      /** Why an override is needed; null when none is. */
      overrideReason: OverrideReason | null;
    }
  | { decision: "skip"; refusal: Refusal };

/** The verdict rules' own sentences where the reason is the same, so every surface says one thing. */
export const REFUSALS = {
  noSandboxId: { reason: "no-sandbox-id", message: REFUSAL_MESSAGES.noSandboxId },
  invalidSandboxId: { reason: "invalid-sandbox-id", message: PLUGIN_MESSAGES.invalidResourceId },
  hostCleanup: { reason: "host-cleanup", message: REFUSAL_MESSAGES.hostCleanup },
  unknown: { reason: "unknown", message: REFUSAL_MESSAGES.unknown },
  notVisible: { reason: "not-visible", message: REFUSAL_MESSAGES.notVisible },
  gone: { reason: "gone", message: REFUSAL_MESSAGES.gone },
  noCredential: { reason: "no-credential", message: PLUGIN_MESSAGES.missingApiKey },
  noLeaseRow: {
    reason: "no-lease-row",
    message: "Release needs a lease row; an untracked sandbox can only be destroyed.",
  },
  notAllowed: { reason: "not-allowed", message: "This action is not allowed for this lease." },
} as const satisfies Record<string, Refusal>;

/** Row statuses that hold a sandbox: destroying it under such a row needs an override. */
const HOLDING_STATUSES: readonly string[] = ["active", "retained"];

export function decideLease(action: ActionKind, facts: LeaseFacts): ItemDecision {
  const refusal = hardRefusal(action, facts);
  if (refusal !== null) return { decision: "skip", refusal };

  const { verdict } = facts;
  const overrideReason = overrideReasonOf(facts);
  const allowed = verdict.allowedActions.includes(action);
  const overridable = verdict.overridableActions.includes(action);
  if (!allowed && !overridable) {
    return { decision: "skip", refusal: verdict.refusals[action] ?? REFUSALS.notAllowed };
  }
  const owned = isOwnedOnly(facts);
  if (action === "release") {
    return {
      decision: "do",
      effect: releaseEffectOf(facts),
      confirmation: null,
      overrideReason: allowed ? overrideReason : (overrideReason ?? verdictOverrideReason(verdict)),
    };
  }
  return {
    decision: "do",
    effect: "delete",
    // Only a row the plugin itself would accept may be destroyed on a click; anything else is forced.
    confirmation: owned ? (verdict.destroyConfirmation ?? "click") : "typed-id",
    overrideReason: allowed ? overrideReason : (overrideReason ?? verdictOverrideReason(verdict)),
  };
}

/**
 * What a release does at CreateOS, as the plugin generation that acts on the lease releases it, with the
 * config the host rebuilds from the lease's metadata (decision 199): delete, pause, or keep the sandbox
 * warm for CreateOS to pause once idle. Leasekeeper makes no request that leaves a sandbox billing, so a
 * keep-warm release pauses it now: where CreateOS's auto-pause would leave it, and a resume works alike.
 * Where the acting generation is not known, the release that destroys least is taken.
 */
function releaseEffectOf(facts: LeaseFacts): ActionEffect {
  const prediction = predictRelease(
    facts.installedPlugin,
    recordedSandboxId(facts.lease),
    facts.lease.metadata,
  );
  return prediction.outcome === "delete" ? "delete" : "pause";
}

/** The verdict asked for an override we did not derive ourselves: name the flag it most likely saw. */
function verdictOverrideReason(verdict: LeaseVerdict): OverrideReason {
  if (verdict.flags.includes("login-session")) return "login-session";
  return verdict.flags.includes("shared") && !verdict.flags.includes("in-use") ? "shared" : "in-use";
}

export function decideUntracked(action: ActionKind, facts: UntrackedFacts): ItemDecision {
  if (action === "release") return { decision: "skip", refusal: REFUSALS.noLeaseRow };
  if (!isValidSandboxId(facts.sandboxId)) return { decision: "skip", refusal: REFUSALS.invalidSandboxId };
  const refusal = providerRefusal(providerCodeOfStatus(facts.status));
  if (refusal !== null) return { decision: "skip", refusal };
  return { decision: "do", effect: "delete", confirmation: "typed-id", overrideReason: null };
}

function hardRefusal(action: ActionKind, facts: LeaseFacts): Refusal | null {
  const sandboxId = recordedSandboxId(facts.lease);
  if (sandboxId === null) return REFUSALS.noSandboxId;
  if (action === "release" && !pluginAcceptsRelease(facts.verdict.ownership)) {
    // The plugin's own check comes before anything else it does, and it makes no request.
    return (
      facts.verdict.refusals.release ?? {
        reason: facts.verdict.ownership.find((code) => code !== "owned") ?? "not-owned",
        message: PLUGIN_MESSAGES.foreignLease,
      }
    );
  }
  if (!isValidSandboxId(sandboxId)) return REFUSALS.invalidSandboxId;
  if (facts.verdict.flags.includes("host-cleanup")) return REFUSALS.hostCleanup;
  const providerRefused = providerRefusal(facts.provider.code);
  if (providerRefused !== null) return providerRefused;
  if (facts.provider.origin === null || facts.provider.credential === null) return REFUSALS.noCredential;
  return null;
}

function providerRefusal(code: ProviderCode): Refusal | null {
  if (code === "unknown") return REFUSALS.unknown;
  if (code === "not-visible") return REFUSALS.notVisible;
  if (code === "gone") return REFUSALS.gone;
  return (LIVE_PROVIDER_STATES as readonly string[]).includes(code) ? null : REFUSALS.unknown;
}

function providerCodeOfStatus(status: string): ProviderCode {
  if (status === "destroyed" || status === "failed") return "gone";
  return (LIVE_PROVIDER_STATES as readonly string[]).includes(status) ? (status as ProviderCode) : "unknown";
}

function isOwnedOnly(facts: LeaseFacts): boolean {
  return facts.verdict.ownership.length === 1 && facts.verdict.ownership[0] === "owned";
}

function overrideReasonOf(facts: LeaseFacts): OverrideReason | null {
  if (facts.verdict.flags.includes("login-session")) return "login-session";
  if (facts.verdict.flags.includes("in-use")) return "in-use";
  const sandboxId = recordedSandboxId(facts.lease);
  const holders = facts.otherRows.filter(
    (row) =>
      row.id !== facts.lease.id &&
      recordedSandboxId(row) === sandboxId &&
      HOLDING_STATUSES.includes(row.status),
  );
  return holders.length > 0 ? "shared" : null;
}

export const OVERRIDE_REFUSALS: Record<OverrideReason, Refusal> = {
  "in-use": { reason: "in-use", message: REFUSAL_MESSAGES.inUse },
  "login-session": { reason: "login-session", message: REFUSAL_MESSAGES.loginSession },
  shared: { reason: "shared", message: REFUSAL_MESSAGES.shared },
  "unread-part": { reason: "unread-part", message: REFUSAL_MESSAGES.unreadPart },
};
