import type { AuditEntry } from "../../../../shared/domain/actions";
import { plural } from "../../lib/format";

/**
 * How the audit view reads the log. Main answers oldest first (an export reads as the story of what
 * happened); the view lists newest first, and tells what became of each plan from the items that share
 * its plan id, since a plan row is written once and never updated.
 */

/** Newest first: ids grow with every append, so they order entries even when two share a timestamp. */
export function newestFirst(entries: readonly AuditEntry[]): AuditEntry[] {
  return [...entries].sort((a, b) => b.id - a.id);
}

/**
 * What became of a plan: run (it has items), cancelled (the operator closed it without running it),
 * expired (past its expiry with no job and never cancelled), or still open.
 */
export type PlanState = "executed" | "cancelled" | "expired" | "open";

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

export function planStates(entries: readonly AuditEntry[], nowMs: number): Map<string, PlanState> {
  const executed = new Set<string>();
  for (const entry of entries) if (entry.kind === "item") executed.add(entry.planId);
  const cancelled = planCancellations(entries);
  const states = new Map<string, PlanState>();
  for (const entry of entries) {
    if (entry.kind !== "plan") continue;
    if (executed.has(entry.planId)) states.set(entry.planId, "executed");
    else if (cancelled.has(entry.planId)) states.set(entry.planId, "cancelled");
    else {
      const expiresAt = Date.parse(String(entry.evidence?.expiresAt ?? ""));
      states.set(entry.planId, Number.isFinite(expiresAt) && expiresAt <= nowMs ? "expired" : "open");
    }
  }
  return states;
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

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
