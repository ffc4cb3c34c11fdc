import type { Plan, PlanItem } from "./actions.js";

/**
 * How many sandboxes a plan will act on, and the count an operator types back for a large or risky one.
 * The same rules for the button in the UI and for main's check on execute, so the number on the button,
 * the number to type and the number acted on are one number.
 */

/** Destroying more than this many items needs the count typed back, unless configured otherwise. */
export const DEFAULT_TYPED_COUNT_ABOVE = 20;

/** Whether a do-item is acted on, given the override choice (items needing it are skipped without). */
export function isActedOn(item: PlanItem, override: boolean): boolean {
  return item.decision === "do" && (override || !item.requiresOverride);
}

/** Items the job will act on: the plan's do-items, less those needing an override that was not given. */
export function actedOnCount(plan: Pick<Plan, "items">, override: boolean): number {
  let count = 0;
  for (const item of plan.items) if (isActedOn(item, override)) count += 1;
  return count;
}

/** What to type for a plan that needs its count typed back: "destroy 248". */
export function typedCountPhrase(action: Plan["action"], count: number): string {
  return `${action} ${count}`;
}

export function typedCountMatches(expected: string, typed: string | undefined): boolean {
  return typed !== undefined && normalize(typed) === normalize(expected);
}

function normalize(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase();
}
