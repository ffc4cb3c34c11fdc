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
 * left unread named, and the accounts CreateOS could not list. Null when the inventory held is another
 * scan's than the plan's (one finished in between): that one's gaps say nothing of the plan's.
 */
export function planUnread(
  held: HeldInventory,
  plan: Pick<PassPlan, "inventoryGeneratedAt">,
): PlanUnread | null {
  if (held.generatedAt !== plan.inventoryGeneratedAt) return null;
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
    accounts: held.originHealth
      .filter((health) => !health.ok)
      .map(({ credential, origin, reason }) => ({ credential, origin, reason })),
  };
}
