import type { PlanItem } from "../../../../shared/domain/actions.js";
import type { ActionKind } from "../../../../shared/domain/codes.js";
import type { ProviderObservation, Refusal, SandboxListing } from "../../../../shared/domain/inventory.js";
import type { SourceGap } from "../../../../shared/domain/paperclip.js";
import { indexListings, observeProvider } from "../../../../shared/domain/provider-state.js";
import { gapInWords } from "../../../../shared/domain/unread-rows.js";
import { classifyLease } from "../../../../shared/domain/verdict.js";
import { decideLease, OVERRIDE_REFUSALS } from "../guard/rules.js";
import { SOURCES_INCOMPLETE } from "../plan/build-plan.js";
import { leaseFingerprint, untrackedFingerprint } from "../plan/fingerprint.js";
import type { RereadLease } from "../ports.js";
import type { SandboxRead } from "./account-reader.js";
import { isTransitioningTo, judgeReadBack } from "./verify.js";

/**
 * The last look before a request is sent. The item goes ahead only if the row (re-read from its source)
 * and the sandbox (re-read from CreateOS) still have the fingerprint the plan froze, and the rules,
 * applied afresh to what was just read, still decide the same thing: same effect, no new confirmation
 * or override needed. Anything else is `changed-since-plan`, and nothing is sent. A part of the sources
 * that could not be read just now and may name the sandbox refuses the item as the plan would have:
 * `unread-part` for a row planned without the override, `sources-incomplete` for an untracked sandbox.
 *
 * An item that a crashed run may already have acted on (`recheck`) is first compared with the effect's
 * end state: if CreateOS already shows it, the item is done without a second request.
 */

export type RecheckResult =
  | { kind: "act" }
  | { kind: "skip"; refusal: Refusal }
  | { kind: "already-done"; message: string }
  | { kind: "await-verification" }
  /** An earlier request's effect cannot be shown; nothing more is sent. */
  | { kind: "unconfirmed"; reason: string; message: string }
  | { kind: "provider-unreadable"; httpStatus: number | null; message: string };

export const CHANGED = "changed-since-plan";
export const CLAIMED = "claimed-since-plan";

export const RECHECK_MESSAGES = {
  rowGone: "The lease row is no longer in its source.",
  rowChanged: "The lease row or its sandbox changed since the plan was made; nothing was done.",
  sandboxChanged: "The sandbox changed at CreateOS since the plan was made; nothing was done.",
  claimedSincePlan:
    "A lease row names this sandbox now (Paperclip may be provisioning it), so it is no orphan; nothing was done.",
  effectChanged:
    "The lease's recorded reuseLease changed since the plan was made, so release would now do something else.",
  confirmationChanged: "This sandbox now needs its id typed back to be destroyed; make a new plan.",
  overrideChanged: "This sandbox is now in use or shared with a live lease; make a new plan.",
  providerUnreadable:
    "CreateOS could not be asked about this sandbox just before acting, so nothing was done",
  unreadPart:
    "A part of the sources that could not be read just before acting may name this sandbox, as a live lease on it; the plan was made without the override for that, so nothing was done",
  unreadOrphan:
    "A part of the sources that could not be read just before acting may hold a lease row naming this sandbox, so it cannot be told an orphan; nothing was done",
} as const;

function changed(message: string): RecheckResult {
  return { kind: "skip", refusal: { reason: CHANGED, message } };
}

/** What an item carries from earlier runs of its job. */
export interface Continuation {
  /** It may already have been acted on: look before sending again. */
  recheck: boolean;
  /** Only find out what was already sent; send nothing. */
  verifyOnly: boolean;
  /** This account listed the sandbox live in this job (before an earlier request, or just now). */
  seenLive: boolean;
}

export interface LeaseRecheckInput {
  action: ActionKind;
  item: PlanItem;
  fresh: RereadLease | null;
  read: SandboxRead;
  now: Date;
  continuation: Continuation;
  /**
   * A part of the sources that could not be read just now and may hold a row naming the sandbox
   * (`unreadRowsAt`); null when every part looked at was read. Absent where the caller did not look.
   */
  unread?: SourceGap | null;
}

export function recheckLease(input: LeaseRecheckInput): RecheckResult {
  const { item, fresh, read } = input;
  const resumed = resumedOutcome(input.continuation, item, read);
  if (resumed !== null) return resumed;
  if (fresh === null) return changed(RECHECK_MESSAGES.rowGone);
  if (read.kind === "failed") return unreadable(read);

  const observation = observationFrom(fresh, item, read);
  if (leaseFingerprint(fresh.lease, observation.code) !== item.fingerprint) {
    return changed(RECHECK_MESSAGES.rowChanged);
  }
  const verdict = classifyLease(fresh.lease, fresh.environment, observation, {
    now: input.now,
    otherRowsOnSandbox: fresh.others,
    ...(fresh.installedPlugin ? { installedPlugin: fresh.installedPlugin } : {}),
  });
  const decision = decideLease(input.action, {
    lease: fresh.lease,
    environment: fresh.environment,
    verdict,
    provider: observation,
    otherRows: fresh.others,
    installedPlugin: fresh.installedPlugin,
  });
  if (decision.decision === "skip")
    return changed(`Changed since the plan was made: ${decision.refusal.message}`);
  if (decision.effect !== item.effect) return changed(RECHECK_MESSAGES.effectChanged);
  if (decision.confirmation === "typed-id" && item.confirmation !== "typed-id") {
    return changed(RECHECK_MESSAGES.confirmationChanged);
  }
  if (decision.overrideReason !== null && !item.requiresOverride)
    return changed(RECHECK_MESSAGES.overrideChanged);
  // Planned without the override, the item was planned where no part not read could name its sandbox
  // (one would have needed it): a row in a part not read now may be a live lease on it. An item run
  // with the override was run knowing a live lease may hold the sandbox.
  const unread = input.unread ?? null;
  if (unread !== null && !item.requiresOverride) {
    return refused(OVERRIDE_REFUSALS["unread-part"].reason, RECHECK_MESSAGES.unreadPart, unread);
  }
  return { kind: "act" };
}

/**
 * `namedNow`: whether a lease row of any source names the sandbox now. `unread`: a part of the sources
 * not read just now that may hold one; while it stands, that no row read names the sandbox does not
 * make it an orphan.
 */
export function recheckUntracked(
  item: PlanItem,
  read: SandboxRead,
  continuation: Continuation,
  namedNow: boolean,
  unread: SourceGap | null = null,
): RecheckResult {
  const resumed = resumedOutcome(continuation, item, read);
  if (resumed !== null) return resumed;
  if (namedNow)
    return { kind: "skip", refusal: { reason: CLAIMED, message: RECHECK_MESSAGES.claimedSincePlan } };
  if (unread !== null) return refused(SOURCES_INCOMPLETE, RECHECK_MESSAGES.unreadOrphan, unread);
  if (read.kind === "failed") return unreadable(read);
  if (read.kind === "absent") return changed(RECHECK_MESSAGES.sandboxChanged);
  const fingerprint = untrackedFingerprint({
    sandboxId: item.sandboxId ?? "",
    origin: item.origin ?? "",
    credential: item.credential ?? "",
    status: read.sandbox.status,
  });
  return fingerprint === item.fingerprint ? { kind: "act" } : changed(RECHECK_MESSAGES.sandboxChanged);
}

function resumedOutcome(continuation: Continuation, item: PlanItem, read: SandboxRead): RecheckResult | null {
  const { recheck, verifyOnly, seenLive } = continuation;
  if ((!recheck && !verifyOnly) || item.effect === null) return null;
  const judged = judgeReadBack(item.effect, read, seenLive);
  if (judged.kind === "confirmed") return { kind: "already-done", message: judged.message };
  if (verifyOnly) {
    return judged.kind === "unconfirmed" || judged.kind === "failed"
      ? { kind: "unconfirmed", reason: judged.reason, message: judged.message }
      : { kind: "await-verification" };
  }
  if (isTransitioningTo(item.effect, read)) return { kind: "await-verification" };
  return null;
}

/** A refusal for a part not read, saying which: its source and what could not be read there. */
function refused(reason: string, sentence: string, gap: SourceGap): RecheckResult {
  return { kind: "skip", refusal: { reason, message: `${sentence} (${gapInWords(gap)})` } };
}

function unreadable(read: Extract<SandboxRead, { kind: "failed" }>): RecheckResult {
  return {
    kind: "provider-unreadable",
    httpStatus: read.failure.httpStatus,
    message: `${RECHECK_MESSAGES.providerUnreadable} (${read.failure.message})`,
  };
}

/**
 * The provider observation for a freshly read row, built with the same rules as the inventory's: the
 * row's recorded origin decides where its sandbox is, so a row re-pointed at another origin no longer
 * matches the read and shows as changed.
 */
function observationFrom(
  fresh: RereadLease,
  item: PlanItem,
  read: Exclude<SandboxRead, { kind: "failed" }>,
): ProviderObservation {
  const listing: SandboxListing = {
    origin: item.origin ?? "",
    credential: item.credential ?? "",
    outcome: {
      ok: true,
      sandboxes: read.kind === "listed" ? [read.sandbox] : [],
      observedAt: read.observedAt,
    },
  };
  return observeProvider(fresh.lease, fresh.environment, indexListings([listing]));
}
