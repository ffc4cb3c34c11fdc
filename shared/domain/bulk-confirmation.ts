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

/**
 * The one breakdown of a plan the dialog shows, from the items kept and the override as chosen: the
 * summary, the button, the count to type and its warning all read their numbers from here, so "57 will
 * be destroyed", "Destroy 57 sandboxes", "destroy 57" and "34 ok, 23 flagged" are one count.
 */
export interface PlanTally {
  action: Plan["action"];
  /** Items the job will act on. */
  acting: number;
  /** Of those, the ones nothing is wrong with (headline `ok`), and the rest. */
  ok: number;
  flagged: number;
  /** The acting items per headline, largest first. */
  byHeadline: { headline: PlanItem["verdict"]["headline"]; count: number }[];
  /** Do-items left alone because they need the override that was not given. */
  waitingForOverride: number;
  /** Kept do-items whose destroy is forced (confirmed by typing), as the forced phrase counts them. */
  forced: number;
  /** "57 will be destroyed", "1 waits for the override". */
  summary: string;
  /** "Destroy 57 sandboxes". */
  button: string;
  /** "destroy 57", when the count must be typed back; null otherwise. */
  countPhrase: string | null;
  /** Why the count is asked, listing what it holds by headline; null when it is not asked. */
  warning: string | null;
}

export function planTally(
  plan: Pick<Plan, "action" | "items" | "countConfirmation">,
  override: boolean,
): PlanTally {
  const acting = plan.items.filter((item) => isActedOn(item, override));
  const counts = new Map<PlanItem["verdict"]["headline"], number>();
  for (const item of acting) counts.set(item.verdict.headline, (counts.get(item.verdict.headline) ?? 0) + 1);
  const byHeadline = [...counts]
    .map(([headline, count]) => ({ headline, count }))
    .sort((a, b) => b.count - a.count || a.headline.localeCompare(b.headline));
  const ok = counts.get("ok") ?? 0;
  const flagged = acting.length - ok;
  const waitingForOverride = plan.items.filter(
    (item) => item.decision === "do" && item.requiresOverride && !override,
  ).length;
  // As the forced phrase counts them ("destroy 15 forced"): every kept forced destroy.
  const forced = plan.items.filter(
    (item) => item.decision === "do" && item.confirmation === "typed-id",
  ).length;
  const destroy = plan.action === "destroy";
  const noun = (count: number) =>
    destroy ? (count === 1 ? "sandbox" : "sandboxes") : count === 1 ? "lease" : "leases";
  const done = destroy ? "destroyed" : "released";
  const summary = [
    `${count(acting.length)} will be ${done}`,
    waitingForOverride > 0
      ? `${count(waitingForOverride)} ${waitingForOverride === 1 ? "waits" : "wait"} for the override`
      : null,
  ]
    .filter((part) => part !== null)
    .join("; ");
  const button = `${destroy ? "Destroy" : "Release"} ${count(acting.length)} ${noun(acting.length)}`;
  const asked = plan.countConfirmation ?? null;
  const countPhrase =
    asked === null || acting.length === 0 ? null : typedCountPhrase(plan.action, acting.length);
  let warning: string | null = null;
  if (countPhrase !== null && asked !== null) {
    const held = [ok > 0 ? `${count(ok)} ok` : null, flagged > 0 ? `${count(flagged)} flagged` : null]
      .filter((part) => part !== null)
      .join(", ");
    const why =
      ok > 0
        ? `${ok === 1 ? "1 of them has" : `${count(ok)} of them have`} nothing wrong with ${ok === 1 ? "it" : "them"}`
        : `that is more than ${count(asked.threshold)} at once`;
    warning = `This destroys ${count(acting.length)} ${noun(acting.length)} (${held}), and ${why}.`;
  }
  return {
    action: plan.action,
    acting: acting.length,
    ok,
    flagged,
    byHeadline,
    waitingForOverride,
    forced,
    summary,
    button,
    countPhrase,
    warning,
  };
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}
