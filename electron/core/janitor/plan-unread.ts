import type { PlanUnread } from "../../../shared/contract/janitor.js";
import type { PassGap, PassPlan } from "../../../shared/domain/janitor/index.js";

/** What of the inventory main holds says what its scan could not read (the inventory view has it). */
export interface HeldInventory {
  generatedAt: string;
  gaps: (PassGap & { environmentId?: string | undefined })[];
  environments: { sourceId: string; environmentId: string | null; name: string }[];
  originHealth: { origin: string; credential: string; ok: boolean; reason: string | null }[];
}

/**
 * What the scan a plan was made over could not read: the sources' gaps, each with the environment it
 * left unread named, how many gaps it had in all, and the accounts CreateOS could not list. Null when the inventory held is another
 * scan's than the plan's (one finished in between): that one's gaps say nothing of the plan's.
 */
export function planUnread(
  held: HeldInventory,
  plan: Pick<PassPlan, "inventoryGeneratedAt">,
  kept: { generatedAt: string; gaps: readonly unknown[] } | null,
): PlanUnread | null {
  if (held.generatedAt !== plan.inventoryGeneratedAt) return null;
  // The view lists the first gaps; what main keeps of the same scan counts every one.
  const gapCount = kept?.generatedAt === held.generatedAt ? kept.gaps.length : held.gaps.length;
  const names = new Map(
    held.environments.map((environment) => [
      `${environment.sourceId}\u0000${environment.environmentId}`,
      environment.name,
    ]),
  );
  return {
    gaps: held.gaps.map(({ source, origin, message, environmentId }) => ({
      source,
      origin,
      message,
      environment:
        environmentId === undefined
          ? null
          : { id: environmentId, name: names.get(`${source}\u0000${environmentId}`) || environmentId },
    })),
    gapCount: Math.max(gapCount, held.gaps.length),
    accounts: held.originHealth
      .filter((health) => !health.ok)
      .map(({ credential, origin, reason }) => ({ credential, origin, reason })),
  };
}
