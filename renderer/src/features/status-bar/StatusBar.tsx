import { useQuery } from "@tanstack/react-query";
import { api } from "../../api";
import { Text } from "../../components/Text";
import { formatExact, formatRelative, originHost, parseTime } from "../../lib/format";
import { useNow } from "../../lib/now";
import { queryKeys } from "../../state/query-keys";
import { useAppInfo } from "../../state/use-app-info";
import { useInventory } from "../../state/use-inventory";
import "./status-bar.css";

const STATE_LABEL = { ok: "connected", down: "down", unknown: "not asked yet" } as const;

/** Last refresh and its age, CreateOS requests this minute and connection state per origin, Demo marker. */
export function StatusBar() {
  const now = useNow();
  const info = useAppInfo();
  const inventory = useInventory();
  const status = useQuery({
    queryKey: queryKeys.status,
    queryFn: () => api.invoke("status:get", {}),
    refetchInterval: 5_000,
    staleTime: 0,
  });
  const lastRefresh = parseTime(status.data?.lastRefreshAt ?? inventory.data?.view.generatedAt ?? null);
  const problems = inventory.data?.view.problemCount ?? 0;

  return (
    <footer className="status-bar" data-testid="status-bar">
      {info.data?.demo && (
        <span
          className="demo-marker"
          data-testid="demo-marker"
          title="Running the generated demo world against the simulator"
        >
          Demo
        </span>
      )}
      <span data-testid="last-refresh" title={lastRefresh ? formatExact(lastRefresh) : undefined}>
        {status.data?.refreshing || inventory.isFetching ? "Refreshing… · " : ""}
        Last refresh {lastRefresh ? formatRelative(lastRefresh, Math.max(now, Date.now())) : "never"}
      </span>
      {problems > 0 && (
        <span
          className="sb-warn"
          title={inventory.data?.view.problems
            .slice(0, 5)
            .map((p) => p.message)
            .join("\n")}
        >
          {problems} source problem{problems === 1 ? "" : "s"}
        </span>
      )}
      <span className="status-spacer" />
      {status.isError && <span className="sb-warn">status unavailable</span>}
      {status.data?.origins.map((origin) => (
        <span
          key={origin.origin}
          className={`origin-status origin-${origin.state}`}
          data-testid="origin-status"
          data-origin={origin.origin}
          data-state={origin.state}
          title={`${origin.origin}: ${STATE_LABEL[origin.state]}${origin.lastError ? ` (${origin.lastError})` : ""}`}
        >
          <span className="dot" aria-hidden="true" />
          <Text value={originHost(origin.origin)} title={false} />
          <span className="muted">{STATE_LABEL[origin.state]}</span>
          <span className="count" title="CreateOS requests in the last minute / budget per minute">
            {origin.requestsLastMinute}/{origin.budgetPerMinute} req/min
          </span>
        </span>
      ))}
      {info.data && <span className="muted">v{info.data.version}</span>}
    </footer>
  );
}
