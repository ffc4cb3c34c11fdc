import type { Plan } from "../../../../shared/domain/actions.js";
import type { ProviderPort } from "../ports.js";

export interface PlannedAccount {
  origin: string;
  credential: string;
  accountId: string;
}

/** The CreateOS user id behind each credential the plan acts with, so a later job can tell a swapped key. */
export async function plannedAccounts(plan: Plan, provider: ProviderPort): Promise<PlannedAccount[]> {
  const pairs = new Map<string, { origin: string; credential: string }>();
  for (const item of plan.items) {
    if (item.decision !== "do" || item.origin === null || item.credential === null) continue;
    pairs.set(`${item.origin}\u0000${item.credential}`, { origin: item.origin, credential: item.credential });
  }
  const found = await Promise.all(
    [...pairs.values()].map(async (pair) => {
      try {
        const client = await provider.account(pair.origin, pair.credential);
        return client === null ? [] : [{ ...pair, accountId: await client.whoami() }];
      } catch {
        // Not learnt now: the first job to act pins it, and every later one is compared with that.
        return [];
      }
    }),
  );
  return found.flat();
}
