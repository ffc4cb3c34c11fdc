import type {
  ActionSelection,
  Plan,
  PlanBreakdown,
  PlanItem,
  PlanRequest,
  VerdictSnapshot,
} from "../../../../shared/domain/actions.js";
import { REFUSAL_MESSAGES } from "../../../../shared/domain/allowed-actions.js";
import { DEFAULT_TYPED_COUNT_ABOVE } from "../../../../shared/domain/bulk-confirmation.js";
import type {
  ClassifiedLease,
  Inventory,
  Refusal,
  UncertainSandbox,
  UntrackedSandbox,
} from "../../../../shared/domain/inventory.js";
import { confirmationPhraseFor, countConfirmationFor } from "../../../../shared/domain/kept-items.js";
import { planPicker } from "../../../../shared/domain/plan-rows.js";
import { providerCodeOf } from "../../../../shared/domain/provider-state.js";
import { recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";
import { gapInWords, unreadRowsAt } from "../../../../shared/domain/unread-rows.js";
import { redactEvidence, withoutSecrets } from "../audit/redact.js";
import { decideLease, decideUntracked, type ItemDecision, type OverrideReason } from "../guard/rules.js";
import { leaseFingerprint, untrackedFingerprint } from "./fingerprint.js";
import { forcedReasonsOfLease, forcedReasonsOfUntracked, planNames } from "./forced-reasons.js";

/**
 * What the engine keeps beside each plan item and never shows: where to re-read the row, which rows
 * shared its sandbox, why an override is needed, and the redacted metadata the audit log records.
 */
export interface FrozenItem {
  itemId: string;
  target: "lease" | "untracked" | "missing";
  overrideReason: OverrideReason | null;
  /** Lease ids of the other rows naming this sandbox at plan time; they are re-read too. */
  sharedWith: string[];
  evidence: Record<string, unknown> | null;
}

export interface BuiltPlan {
  plan: Plan;
  frozen: FrozenItem[];
}

export interface PlanBuildInput {
  planId: string;
  request: PlanRequest;
  inventory: Inventory;
  now: Date;
  ttlMs: number;
  operator: string;
  /** Configured API keys, scrubbed from evidence wherever they appear as a value. */
  knownSecrets?: ReadonlySet<string>;
  /** Destroying more items than this needs the count typed back. */
  typedCountAbove?: number;
}

const DUPLICATE_SANDBOX: Refusal = {
  reason: "duplicate-sandbox",
  message: "Another item of this plan already acts on this sandbox.",
};
export const SOURCES_INCOMPLETE = "sources-incomplete";
const NOT_FOUND: Refusal = {
  reason: "not-found",
  message: "Nothing by this id is in the current inventory.",
};

/** Pure: the same inventory and request always give the same plan (bar its id and times). */
export function buildPlan(input: PlanBuildInput): BuiltPlan {
  const { request, inventory } = input;
  const byLeaseId = new Map<string, ClassifiedLease[]>();
  for (const classified of inventory.leases) {
    const list = byLeaseId.get(classified.lease.id);
    if (list === undefined) byLeaseId.set(classified.lease.id, [classified]);
    else list.push(classified);
  }

  const names = planNames(inventory);
  const unreadAt = unreadRowsAt(inventory.gaps);
  const items: PlanItem[] = [];
  const frozen: FrozenItem[] = [];
  const claimed = new Set<string>();
  const nextId = () => `item-${String(items.length + 1).padStart(5, "0")}`;

  const addLease = (classified: ClassifiedLease) => {
    const otherRows = classified.sharedWith.flatMap((id) =>
      (byLeaseId.get(id) ?? []).map((other) => other.lease),
    );
    // Other rows are matched among the rows read; a part not read may hold a live lease on the sandbox too.
    const unread = unreadAt(classified.provider.origin);
    const decision = unreadMayHold(
      decideLease(request.action, { ...classified, otherRows }),
      unread !== null,
    );
    const item = leaseItem(nextId(), classified, decision);
    if (unread !== null && decision.decision === "do") {
      item.caution = `${REFUSAL_MESSAGES.unreadPart} (${gapInWords(unread)})`;
      item.unreadPart = { source: unread.source, message: unread.message };
    }
    item.companyName = names.company(item.companyId);
    if (isForced(item)) item.forcedBecause = forcedReasonsOfLease(classified, names);
    pushItem(item, {
      itemId: item.itemId,
      target: "lease",
      overrideReason: decision.decision === "do" ? decision.overrideReason : null,
      sharedWith: [...classified.sharedWith],
      evidence: redactEvidence(classified.lease.metadata, input.knownSecrets),
    });
  };

  const addUntracked = (sandbox: UntrackedSandbox | UncertainSandbox) => {
    // A sandbox no row names at an origin where a source was incomplete may be a lease's: never acted on.
    const decision: ItemDecision =
      "reason" in sandbox
        ? { decision: "skip", refusal: { reason: SOURCES_INCOMPLETE, message: sandbox.reason } }
        : decideUntracked(request.action, sandbox);
    const item = untrackedItem(nextId(), sandbox, decision);
    if (isForced(item)) item.forcedBecause = forcedReasonsOfUntracked();
    pushItem(item, {
      itemId: item.itemId,
      target: "untracked",
      overrideReason: null,
      sharedWith: [],
      evidence: null,
    });
  };

  const addMissing = (leaseId: string | null, sandboxId: string | null) => {
    const item = missingItem(nextId(), leaseId, sandboxId);
    pushItem(item, {
      itemId: item.itemId,
      target: "missing",
      overrideReason: null,
      sharedWith: [],
      evidence: null,
    });
  };

  // One action per sandbox per plan: a second row naming a sandbox already acted on is skipped here
  // rather than refused by the single-flight guard halfway through the job.
  const pushItem = (item: PlanItem, frozenItem: FrozenItem) => {
    if (item.decision === "do" && item.origin !== null && item.sandboxId !== null) {
      const key = `${item.origin}\u0000${item.sandboxId}`;
      if (claimed.has(key)) {
        Object.assign(item, skipFields(DUPLICATE_SANDBOX));
        frozenItem.overrideReason = null;
      } else {
        claimed.add(key);
      }
    }
    items.push(item);
    frozen.push(frozenItem);
  };

  selectTargets(request.selection, inventory, byLeaseId, { addLease, addUntracked, addMissing });
  // Names come from the sources as typed; a key pasted into one is not written into the plan or the log.
  const secrets = input.knownSecrets ?? new Set<string>();
  const scrub = (text: string | null) => (text === null ? null : withoutSecrets(text, secrets));
  for (const item of items) {
    item.environmentName = scrub(item.environmentName);
    if (item.companyName !== undefined) item.companyName = scrub(item.companyName);
    if (item.caution !== undefined) item.caution = scrub(item.caution) ?? undefined;
    if (item.unreadPart !== undefined)
      item.unreadPart = {
        source: withoutSecrets(item.unreadPart.source, secrets),
        message: withoutSecrets(item.unreadPart.message, secrets),
      };
    item.forcedBecause = item.forcedBecause?.map((reason) => ({
      ...reason,
      recorded: scrub(reason.recorded),
      recordedName: scrub(reason.recordedName),
      expected: scrub(reason.expected),
      expectedName: scrub(reason.expectedName),
    }));
    if (item.forcedBecause === undefined) delete item.forcedBecause;
  }

  const createdAt = input.now.toISOString();
  const plan: Plan = {
    planId: input.planId,
    action: request.action,
    createdAt,
    expiresAt: new Date(input.now.getTime() + input.ttlMs).toISOString(),
    operator: input.operator,
    items,
    counts: countItems(items),
    origins: originsOf(items, inventory),
    confirmationPhrase: confirmationPhraseFor(items),
    breakdown: breakdownOf(items),
    countConfirmation: countConfirmationFor(
      request.action,
      items,
      input.typedCountAbove ?? DEFAULT_TYPED_COUNT_ABOVE,
    ),
  };
  return { plan, frozen };
}

/**
 * An action on a sandbox a row not read may hold needs the override, as one another row read holds does;
 * a reason the guard found already is kept, being what was read.
 */
function unreadMayHold(decision: ItemDecision, unread: boolean): ItemDecision {
  if (!unread || decision.decision !== "do" || decision.overrideReason !== null) return decision;
  return { ...decision, overrideReason: "unread-part" };
}

/** The do-items by headline and environment, largest group first. */
export function breakdownOf(items: readonly PlanItem[]): PlanBreakdown[] {
  const groups = new Map<string, PlanBreakdown>();
  for (const item of items) {
    if (item.decision !== "do") continue;
    const key = `${item.verdict.headline}\u0000${item.environmentId ?? ""}`;
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, {
        headline: item.verdict.headline,
        environmentId: item.environmentId,
        environmentName: item.environmentName,
        count: 1,
      });
    } else group.count += 1;
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

interface TargetSink {
  addLease(classified: ClassifiedLease): void;
  addUntracked(sandbox: UntrackedSandbox | UncertainSandbox): void;
  addMissing(leaseId: string | null, sandboxId: string | null): void;
}

function selectTargets(
  selection: ActionSelection,
  inventory: Inventory,
  byLeaseId: ReadonlyMap<string, ClassifiedLease[]>,
  sink: TargetSink,
): void {
  switch (selection.kind) {
    case "leases": {
      for (const leaseId of new Set(selection.leaseIds)) {
        const found = byLeaseId.get(leaseId);
        if (found === undefined) sink.addMissing(leaseId, null);
        else for (const classified of found) sink.addLease(classified);
      }
      return;
    }
    case "headline": {
      const picks = planPicker(selection);
      for (const classified of inventory.leases) if (picks(classified)) sink.addLease(classified);
      return;
    }
    case "untracked": {
      const ofCredential = [...inventory.untracked, ...inventory.untrackedUncertain].filter(
        (sandbox) => sandbox.credential === selection.credential,
      );
      if (selection.sandboxIds === undefined) {
        for (const sandbox of ofCredential) sink.addUntracked(sandbox);
        return;
      }
      const byId = new Map(ofCredential.map((sandbox) => [sandbox.sandboxId, sandbox]));
      for (const sandboxId of new Set(selection.sandboxIds)) {
        const sandbox = byId.get(sandboxId);
        if (sandbox === undefined) sink.addMissing(null, sandboxId);
        else sink.addUntracked(sandbox);
      }
      return;
    }
  }
}

function isForced(item: PlanItem): boolean {
  return item.decision === "do" && item.confirmation === "typed-id";
}

function verdictSnapshot(classified: Pick<ClassifiedLease, "verdict">): VerdictSnapshot {
  const { verdict } = classified;
  return {
    headline: verdict.headline,
    ownership: [...verdict.ownership],
    provider: verdict.provider,
    flags: [...verdict.flags],
  };
}

function leaseItem(itemId: string, classified: ClassifiedLease, decision: ItemDecision): PlanItem {
  const { lease, environment, provider } = classified;
  return {
    itemId,
    leaseId: lease.id,
    sourceId: classified.sourceId,
    environmentId: environment?.id ?? lease.environmentId,
    environmentName: environment?.name ?? null,
    companyId: lease.companyId,
    sandboxId: recordedSandboxId(lease),
    origin: provider.origin,
    credential: provider.credential,
    ...decisionFields(decision),
    verdict: verdictSnapshot(classified),
    fingerprint: leaseFingerprint(lease, provider.code),
  };
}

/** An untracked sandbox has no row to judge; its snapshot says only what CreateOS said. */
function untrackedVerdict(status: string): VerdictSnapshot {
  return {
    headline: "stale",
    ownership: [],
    provider: providerCodeOf(status) ?? "unknown",
    flags: [],
  };
}

function untrackedItem(itemId: string, sandbox: UntrackedSandbox, decision: ItemDecision): PlanItem {
  return {
    itemId,
    leaseId: null,
    sourceId: null,
    environmentId: null,
    environmentName: null,
    companyId: null,
    sandboxId: sandbox.sandboxId,
    origin: sandbox.origin,
    credential: sandbox.credential,
    ...decisionFields(decision),
    verdict: untrackedVerdict(sandbox.status),
    fingerprint: untrackedFingerprint({
      sandboxId: sandbox.sandboxId,
      origin: sandbox.origin,
      credential: sandbox.credential,
      status: sandbox.status,
    }),
  };
}

function missingItem(itemId: string, leaseId: string | null, sandboxId: string | null): PlanItem {
  return {
    itemId,
    leaseId,
    sourceId: null,
    environmentId: null,
    environmentName: null,
    companyId: null,
    sandboxId,
    origin: null,
    credential: null,
    ...skipFields(NOT_FOUND),
    verdict: { headline: "unknown", ownership: [], provider: "unknown", flags: [] },
    fingerprint: "",
  };
}

type DecisionFields = Pick<
  PlanItem,
  | "decision"
  | "effect"
  | "confirmation"
  | "requiresOverride"
  | "overrideReason"
  | "skipReason"
  | "skipMessage"
>;

function decisionFields(decision: ItemDecision): DecisionFields {
  if (decision.decision === "skip") return skipFields(decision.refusal);
  return {
    decision: "do",
    effect: decision.effect,
    confirmation: decision.confirmation,
    requiresOverride: decision.overrideReason !== null,
    overrideReason: decision.overrideReason,
    skipReason: null,
    skipMessage: null,
  };
}

function skipFields(refusal: Refusal): DecisionFields {
  return {
    decision: "skip",
    effect: null,
    confirmation: null,
    requiresOverride: false,
    overrideReason: null,
    skipReason: refusal.reason,
    skipMessage: refusal.message,
  };
}

export function countItems(items: readonly PlanItem[]): Plan["counts"] {
  const counts: Plan["counts"] = {
    do: 0,
    skip: 0,
    pause: 0,
    delete: 0,
    typedId: 0,
    needsOverride: 0,
    skippedByReason: {},
  };
  for (const item of items) {
    if (item.decision === "skip") {
      counts.skip += 1;
      const reason = item.skipReason ?? "skipped";
      counts.skippedByReason[reason] = (counts.skippedByReason[reason] ?? 0) + 1;
      continue;
    }
    counts.do += 1;
    if (item.effect === "pause") counts.pause += 1;
    if (item.effect === "delete") counts.delete += 1;
    if (item.confirmation === "typed-id") counts.typedId += 1;
    if (item.requiresOverride) counts.needsOverride += 1;
  }
  return counts;
}

function originsOf(items: readonly PlanItem[], inventory: Inventory): Plan["origins"] {
  const byAccount = new Map<string, Plan["origins"][number]>();
  for (const item of items) {
    if (item.decision !== "do" || item.origin === null || item.credential === null) continue;
    const key = `${item.origin}\u0000${item.credential}`;
    const entry = byAccount.get(key);
    if (entry !== undefined) {
      entry.items += 1;
      continue;
    }
    const health = inventory.origins.find(
      (origin) => origin.origin === item.origin && origin.credential === item.credential,
    );
    byAccount.set(key, {
      origin: item.origin,
      credential: item.credential,
      items: 1,
      ...(health?.ok ? { listedSandboxes: health.sandboxCount } : {}),
    });
  }
  return [...byAccount.values()];
}
