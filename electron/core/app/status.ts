import type { StatusView } from "../../../shared/contract/index.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import type { LeasekeeperConfig } from "../config/load.js";
import { allOriginStats } from "../createos/index.js";

/**
 * Per origin: how much of the request budget the last minute used (from the process-wide pacer), and
 * whether the last scan could list it. `down` means no credential could list the origin; `unknown` means
 * it has not been asked yet. `lastError` is a reason code, never a provider body.
 */
export function statusView(
  config: LeasekeeperConfig,
  inventory: Pick<Inventory, "origins"> | null,
  refresh: { lastRefreshAt: string | null; refreshing: boolean },
): StatusView {
  const stats = new Map(allOriginStats().map((entry) => [entry.origin, entry]));
  const origins = [
    ...new Set([...config.credentials.map((credential) => credential.origin), ...stats.keys()]),
  ];
  return {
    origins: origins.map((origin) => {
      const listings = inventory?.origins.filter((health) => health.origin === origin) ?? [];
      const failed = listings.find((health) => !health.ok);
      const state = listings.length === 0 ? "unknown" : listings.some((health) => health.ok) ? "ok" : "down";
      const pacer = stats.get(origin);
      return {
        origin,
        requestsLastMinute: pacer?.requestsLastMinute ?? 0,
        budgetPerMinute: Math.round(pacer?.requestsPerMinute ?? config.rateLimitPerMinute),
        state,
        lastError: failed?.reason ?? null,
      };
    }),
    lastRefreshAt: refresh.lastRefreshAt,
    refreshing: refresh.refreshing,
  };
}
