import type { Inventory } from "../inventory.js";
import type { MarkerProof } from "../marker-proof.js";
import { isOpenQuarantine, type Quarantine } from "../quarantine.js";
import { actionRefusal } from "./action-refusal.js";
import { candidatesOf, type JanitorCandidate, sandboxKey, targetOf } from "./candidate.js";
import { excluded } from "./exclusions.js";
import {
  indexProofs,
  isForcedDestroy,
  type LeaseStatuses,
  leaseStatuses,
  readProof,
} from "./forced-destroy-proof.js";
import type { CapName, PassItem, PassPlan, PastAction, RulePlan, Skip, SkipReason } from "./pass-plan.js";
import { effectiveCaps, JANITOR_ACTIONS, type JanitorAction, type Policy, type Rule } from "./policy.js";
import { proofPrefixes, type RecordersNow, recordersNow } from "./recorders-now.js";
import { matchSelector, type SelectionContext } from "./select.js";

export interface PassInput {
  policy: Policy;
  /** Its rows may be only those some rule matches (`policyRowPicker`), given `statuses`. */
  inventory: Inventory;
  /** Every kept marker proof; the newest of each subject counts. */
  proofs: Iterable<MarkerProof>;
  /**
   * The status of every lease a proof names (`proofOwners`), wherever it is in the inventory. Left out,
   * they are read from `inventory`'s rows, which must then be all of them.
   */
  statuses?: LeaseStatuses;
  /**
   * The rows recording each proof's marker (`proofPrefixes`), wherever they are in the inventory. Left
   * out, they are read from `inventory`'s rows, which must then be all of them.
   */
  recorders?: RecordersNow;
  now: Date;
  /** What earlier passes did, so a cap per hour holds across passes. Only actions taken, never a dry run's. */
  history: readonly PastAction[];
  /** Quarantines the store knows; an open one keeps every rule off its sandbox. */
  quarantines?: readonly Pick<Quarantine, "sandboxId" | "origin" | "state">[];
}

const HOUR_MS = 3_600_000;

/**
 * One pass of a policy over one inventory, decided and nothing done: for each rule in order, every
 * candidate its selector matches, selected or skipped with the reason. A candidate is checked against the
 * built-in exclusions, the guard's own verdict for the action, the marker proof a forced destroy needs,
 * an open quarantine, the rules before it (a sandbox is acted on once, by the first rule to claim it),
 * and then the caps. Candidates are taken in the inventory's order.
 */
export function planPass({
  policy,
  inventory,
  proofs,
  statuses,
  recorders,
  now,
  history,
  quarantines = [],
}: PassInput): PassPlan {
  const context = selectionContext({
    inventory,
    proofs,
    statuses: statuses ?? leaseStatuses(inventory),
    recorders: recorders ?? recordersNow(inventory.leases, proofPrefixes(proofs)),
    now,
  });
  const quarantined = new Set(
    quarantines
      .filter(isOpenQuarantine)
      .map(({ origin, sandboxId }) => `sandbox\u0000${origin}\u0000${sandboxId}`),
  );
  const caps = effectiveCaps(policy);
  const hourAgo = now.getTime() - HOUR_MS;
  // An entry whose time cannot be read, or lies ahead of this clock, is counted as within the hour.
  const recent = history.filter((past) => !(Date.parse(past.at) <= hourAgo));
  const usedThisHour = recent.length;

  const candidates = candidatesOf(inventory);
  const claimedBy = new Map<string, string>();
  let selectedInPass = 0;
  const rules = policy.rules.map((rule): RulePlan => {
    const plan: RulePlan = {
      rule: rule.name,
      action: rule.action,
      quarantineHours: rule.quarantineHours ?? null,
      selected: [],
      skipped: [],
    };
    const ruleHourUsed = recent.filter((past) => past.rule === rule.name).length;
    for (const candidate of candidates) {
      const selection = matchSelector(rule.select, candidate, context);
      if (!selection.matches) continue;
      const item: PassItem = {
        target: targetOf(candidate),
        clauses: selection.clauses,
        forced: isForcedDestroy(candidate, rule.action),
        proof: null,
        skip: null,
      };
      if (item.forced) item.proof = readProof(candidate, context.proofs, context);
      item.skip = gate(candidate, rule, item, { quarantined, claimedBy });
      if (item.skip === null) {
        const cap = capReached(rule, caps, {
          inRule: plan.selected.length,
          ruleHour: ruleHourUsed + plan.selected.length,
          inPass: selectedInPass,
          policyHour: usedThisHour + selectedInPass,
        });
        if (cap !== null) item.skip = cap;
      }
      if (item.skip === null) {
        plan.selected.push(item);
        selectedInPass += 1;
      } else {
        plan.skipped.push(item);
      }
    }
    return plan;
  });

  return {
    operator: policy.operator,
    plannedAt: now.toISOString(),
    inventoryGeneratedAt: inventory.generatedAt,
    caps: { ...caps, usedThisHour },
    rules,
    counts: countPlan(rules),
  };
}

/** What every rule's selector is judged against in a plan of `inventory`. */
export function selectionContext({
  inventory,
  proofs,
  statuses,
  recorders,
  now,
}: {
  inventory: Pick<Inventory, "companies" | "gaps">;
  proofs: Iterable<MarkerProof>;
  statuses: LeaseStatuses;
  recorders: RecordersNow;
  now: Date;
}): SelectionContext {
  return {
    now,
    companyNames: new Map(inventory.companies.map((company) => [company.id, company.name])),
    proofs: indexProofs(proofs),
    statuses,
    recorders,
    gaps: inventory.gaps,
  };
}

/**
 * Everything but the caps, in order. Passing the action's own checks claims the sandbox for this rule,
 * even if a cap then holds it back: a later rule never does something else to a sandbox an earlier rule
 * meant for itself.
 */
function gate(
  candidate: JanitorCandidate,
  rule: Rule,
  item: PassItem,
  state: { quarantined: ReadonlySet<string>; claimedBy: Map<string, string> },
): Skip | null {
  const exclusion = excluded(candidate);
  if (exclusion !== null) return { reason: exclusion.reason, message: exclusion.message };
  const refusal = actionRefusal(candidate, rule.action);
  if (refusal !== null)
    return { reason: "action-refused", message: refusal.message, refusal: refusal.reason };
  if (item.proof !== null && !item.proof.proves) {
    return {
      reason: "needs-marker-proof",
      message: `A ${rule.action} of a sandbox this environment does not own needs a marker proof that it is nobody's: ${item.proof.message}`,
    };
  }
  const key = sandboxKey(candidate);
  if (state.quarantined.has(key)) {
    return { reason: "in-quarantine", message: "An open quarantine holds this sandbox already." };
  }
  const owner = state.claimedBy.get(key);
  if (owner !== undefined) {
    return {
      reason: "already-selected",
      byRule: owner,
      message: `Already selected by rule ${owner}; a sandbox is acted on once in a pass.`,
    };
  }
  state.claimedBy.set(key, rule.name);
  return null;
}

interface CapUse {
  inRule: number;
  ruleHour: number;
  inPass: number;
  policyHour: number;
}

function capReached(rule: Rule, caps: { perPass: number; perHour: number }, use: CapUse): Skip | null {
  const limits: Array<[CapName, number | undefined, number, string]> = [
    [
      "rule-per-pass",
      rule.maxPerPass,
      use.inRule,
      `rule ${rule.name} acts on at most ${rule.maxPerPass} a pass`,
    ],
    [
      "rule-per-hour",
      rule.maxPerHour,
      use.ruleHour,
      `rule ${rule.name} acts on at most ${rule.maxPerHour} an hour`,
    ],
    ["policy-per-pass", caps.perPass, use.inPass, `the policy acts on at most ${caps.perPass} a pass`],
    ["policy-per-hour", caps.perHour, use.policyHour, `the policy acts on at most ${caps.perHour} an hour`],
  ];
  for (const [cap, limit, used, sentence] of limits) {
    if (limit !== undefined && used >= limit) {
      return { reason: "cap-reached", cap, message: `Cap reached: ${sentence}; a later pass may take it.` };
    }
  }
  return null;
}

function countPlan(rules: readonly RulePlan[]): PassPlan["counts"] {
  const byAction = Object.fromEntries(JANITOR_ACTIONS.map((action) => [action, 0])) as Record<
    JanitorAction,
    number
  >;
  const bySkipReason: Partial<Record<SkipReason, number>> = {};
  let selected = 0;
  let skipped = 0;
  for (const rule of rules) {
    selected += rule.selected.length;
    skipped += rule.skipped.length;
    byAction[rule.action] += rule.selected.length;
    for (const item of rule.skipped) {
      const reason = item.skip!.reason;
      bySkipReason[reason] = (bySkipReason[reason] ?? 0) + 1;
    }
  }
  return { selected, skipped, byAction, bySkipReason };
}
