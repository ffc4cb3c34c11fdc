import type { AuditEntry, AuditQuery } from "../../../../shared/domain/actions";
import { plural } from "../../lib/format";

/**
 * How the audit view reads the log. Main answers oldest first (an export reads as the story of what
 * happened); the view lists stories newest first, and tells what became of each plan from the items and
 * the cancellation that share its plan id, since a plan row is written once and never updated.
 */

/** Newest first: ids grow with every append, so they order entries even when two share a timestamp. */
export function newestFirst(entries: readonly AuditEntry[]): AuditEntry[] {
  return [...entries].sort((a, b) => b.id - a.id);
}

/**
 * What became of a plan: run (it has items), cancelled (the operator closed it without running it),
 * expired (past its expiry with no job and never cancelled), or still open. "not-shown" when the rows
 * shown cannot hold its ending: a filter left out the items and the cancellation that would say it.
 */
export type PlanState = "executed" | "cancelled" | "expired" | "open" | "not-shown";

/** Whether the rows shown can hold each plan's ending, so its absence may be read as "never run". */
export interface Endings {
  endingsShown: boolean;
}

const EVERY_ENDING_SHOWN: Endings = { endingsShown: true };

/**
 * Whether a query returns the rows that tell how a plan ended along with the plan. An outcome keeps
 * only the rows of that outcome: "planned" gives the plan rows without their items or cancellations.
 * The others keep them: a plan, its items and its cancellation share the action; the cancellation
 * carries the plan's environment, and the plan names an environment only when its items are in it;
 * items and cancellation come after the plan, so a period or the limit (which keeps the newest) that
 * keeps the plan keeps them too.
 */
export function endingsShownUnder(query: AuditQuery): boolean {
  return query.outcome === undefined;
}

/** The row that says a plan was cancelled: who closed it and when. */
export function isCancellation(entry: AuditEntry): boolean {
  return entry.kind === "plan" && entry.outcome === "cancelled";
}

/** Who cancelled each cancelled plan, and when. */
export function planCancellations(
  entries: readonly AuditEntry[],
): Map<string, { operator: string; at: string }> {
  const cancellations = new Map<string, { operator: string; at: string }>();
  for (const entry of entries) {
    if (isCancellation(entry) && !cancellations.has(entry.planId))
      cancellations.set(entry.planId, { operator: entry.operator, at: entry.at });
  }
  return cancellations;
}

export function planStates(
  entries: readonly AuditEntry[],
  nowMs: number,
  { endingsShown }: Endings = EVERY_ENDING_SHOWN,
): Map<string, PlanState> {
  const executed = new Set<string>();
  for (const entry of entries) if (entry.kind === "item") executed.add(entry.planId);
  const cancelled = planCancellations(entries);
  const states = new Map<string, PlanState>();
  for (const entry of entries) {
    if (entry.kind !== "plan") continue;
    if (executed.has(entry.planId)) states.set(entry.planId, "executed");
    else if (cancelled.has(entry.planId)) states.set(entry.planId, "cancelled");
    // Expired and open are read from what is missing, which a filter may have left out.
    else if (!endingsShown) states.set(entry.planId, "not-shown");
    else {
      const expiresAt = Date.parse(String(entry.evidence?.expiresAt ?? ""));
      states.set(entry.planId, Number.isFinite(expiresAt) && expiresAt <= nowMs ? "expired" : "open");
    }
  }
  return states;
}

/** What the view lists: one story per plan, per quarantine, and per entry that belongs to neither. */
export type AuditStory = PlanStory | QuarantineStory | EntryStory;

/**
 * A plan as one entry that ends: its row (or, when a filter left the row out, its cancellation, which
 * carries the same scope), how it ended, and the items it ran, oldest first.
 */
export interface PlanStory {
  kind: "plan";
  key: string;
  plan: AuditEntry;
  state: PlanState;
  /** Who closed it without running it, and when; null unless cancelled. */
  cancelledBy: { operator: string; at: string } | null;
  items: AuditEntry[];
  /** The newest entry of the story: stories are listed by it. */
  lastId: number;
}

/** A quarantine's steps (quarantined, cancelled, destroyed, kept, failed) with the plans it made folded in. */
export interface QuarantineStory {
  kind: "quarantine";
  key: string;
  steps: AuditEntry[];
  /** Its latest step: what became of it so far. */
  last: AuditEntry;
  plans: PlanStory[];
  lastId: number;
}

export interface EntryStory {
  kind: "entry";
  key: string;
  entry: AuditEntry;
  lastId: number;
}

/** The plan ids a quarantine entry names as its own (the check before the pause, each due destroy). */
function quarantinePlans(entry: AuditEntry): string[] {
  const evidence = entry.evidence ?? {};
  const ids = strings(evidence.planIds);
  if (typeof evidence.destroyPlanId === "string") ids.push(evidence.destroyPlanId);
  return ids;
}

/**
 * The log as stories, newest first: a plan with its cancellation and items is one story that ends (run,
 * cancelled, expired, or still open); a quarantine's entries are one story, and the plans it made fold
 * under it; anything else (a repair, an item whose plan a filter left out) stands alone.
 */
export function auditStories(
  entries: readonly AuditEntry[],
  nowMs: number,
  endings: Endings = EVERY_ENDING_SHOWN,
): AuditStory[] {
  const states = planStates(entries, nowMs, endings);
  const cancellations = planCancellations(entries);
  const quarantines = new Map<string, AuditEntry[]>();
  const ownerOf = new Map<string, string>();
  for (const entry of entries) {
    if (entry.action !== "quarantine") continue;
    const steps = quarantines.get(entry.planId) ?? [];
    steps.push(entry);
    quarantines.set(entry.planId, steps);
    for (const planId of quarantinePlans(entry)) ownerOf.set(planId, entry.planId);
  }
  const plans = new Map<string, PlanStory>();
  const alone: EntryStory[] = [];
  // Plan rows first, so a cancellation or an item finds its plan whatever order the log gives.
  for (const entry of entries) {
    if (entry.kind !== "plan" || isCancellation(entry) || plans.has(entry.planId)) continue;
    plans.set(entry.planId, {
      kind: "plan",
      key: entry.planId,
      plan: entry,
      state: states.get(entry.planId) ?? "open",
      cancelledBy: cancellations.get(entry.planId) ?? null,
      items: [],
      lastId: entry.id,
    });
  }
  for (const entry of entries) {
    if (entry.action === "quarantine") continue;
    const story = plans.get(entry.planId);
    if (entry.kind === "plan" && isCancellation(entry)) {
      if (story) story.lastId = Math.max(story.lastId, entry.id);
      else
        plans.set(entry.planId, {
          kind: "plan",
          key: entry.planId,
          plan: entry,
          state: "cancelled",
          cancelledBy: { operator: entry.operator, at: entry.at },
          items: [],
          lastId: entry.id,
        });
    } else if (entry.kind === "item") {
      if (story) {
        story.items.push(entry);
        story.lastId = Math.max(story.lastId, entry.id);
      } else alone.push({ kind: "entry", key: `entry-${entry.id}`, entry, lastId: entry.id });
    }
  }
  const stories: AuditStory[] = [...alone];
  const folded = new Map<string, PlanStory[]>();
  for (const story of plans.values()) {
    const owner = ownerOf.get(story.key);
    if (owner === undefined) stories.push(story);
    else folded.set(owner, [...(folded.get(owner) ?? []), story]);
  }
  for (const [quarantineId, steps] of quarantines) {
    const own = folded.get(quarantineId) ?? [];
    stories.push({
      kind: "quarantine",
      key: quarantineId,
      steps,
      last: steps[steps.length - 1]!,
      plans: own,
      lastId: Math.max(...steps.map((step) => step.id), ...own.map((plan) => plan.lastId)),
    });
  }
  return stories.sort((a, b) => b.lastId - a.lastId);
}

/** The scope a plan was asked for, in the operator's words: what was picked and where. */
export interface PlanScope {
  /** "lease L-1", "3 leases", "stale and foreign leases", "2 untracked sandboxes". */
  what: string;
  /** The environments named by the selection or by its items, by name where the log has one. */
  environments: string[];
  /** The sandbox when the plan was about exactly one. */
  sandboxId: string | null;
  /** "2 to do, 1 skipped" from the plan's counts. */
  counts: string | null;
}

export function planScope(
  plan: AuditEntry,
  entries: readonly AuditEntry[],
  environmentName: (id: string) => string,
): PlanScope {
  const items = entries.filter((entry) => entry.kind === "item" && entry.planId === plan.planId);
  const selection = asRecord(plan.evidence?.selection);
  const counts = asRecord(plan.evidence?.counts);
  const environments = new Set<string>();
  for (const item of items) {
    if (item.environmentId) environments.add(item.environmentName || environmentName(item.environmentId));
  }
  // The environments the plan's items were in, as the plan row recorded them (a cancelled plan has no
  // items in the log).
  for (const recorded of records(plan.evidence?.environments)) {
    const name = typeof recorded.name === "string" && recorded.name !== "" ? recorded.name : null;
    const id = typeof recorded.id === "string" ? recorded.id : null;
    if (name ?? id) environments.add(name ?? environmentName(id!));
  }
  if (environments.size === 0 && plan.environmentId)
    environments.add(plan.environmentName || environmentName(plan.environmentId));
  let what = "a selection";
  let sandboxId: string | null = null;
  switch (selection?.kind) {
    case "leases": {
      const leaseIds = strings(selection.leaseIds);
      what = leaseIds.length === 1 ? `lease ${leaseIds[0]}` : plural(leaseIds.length, "lease");
      break;
    }
    case "headline": {
      const headlines = strings(selection.headlines);
      what = `${headlines.join(" and ") || "matching"} leases`;
      for (const id of strings(selection.environmentIds)) environments.add(environmentName(id));
      break;
    }
    case "untracked": {
      const sandboxIds = strings(selection.sandboxIds);
      const account = typeof selection.credential === "string" ? selection.credential : "an account";
      what =
        sandboxIds.length === 0
          ? `every untracked sandbox of ${account}`
          : `${plural(sandboxIds.length, "untracked sandbox", "untracked sandboxes")} of ${account}`;
      if (sandboxIds.length === 1) sandboxId = sandboxIds[0] ?? null;
      break;
    }
  }
  const sandboxes = new Set(items.map((item) => item.sandboxId).filter((id): id is string => id !== null));
  if (sandboxId === null && sandboxes.size === 1) sandboxId = [...sandboxes][0] ?? null;
  const toDo = typeof counts?.do === "number" ? counts.do : null;
  const skipped = typeof counts?.skip === "number" ? counts.skip : null;
  return {
    what,
    environments: [...environments].sort((a, b) => a.localeCompare(b)),
    sandboxId,
    counts: toDo === null ? null : `${toDo} to do${skipped ? `, ${skipped} skipped` : ""}`,
  };
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map(asRecord).filter((item) => item !== null) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
