import { Text } from "../../components/Text";
import { formatExact, originHost, parseTime } from "../../lib/format";
import { useNow } from "../../lib/now";
import { useAppInfo } from "../../state/use-app-info";
import { useInventory } from "../../state/use-inventory";
import { footerWords, originWords } from "./scan-words";
import { useStatus } from "./use-status";
import "./status-bar.css";

const SOURCE_LABEL = { complete: "read", partial: "incomplete", failed: "failed" } as const;

/**
 * The last scan's outcome and age, each source's and each origin's state as that scan left it, CreateOS
 * requests this minute, and the Demo marker.
 */
export function StatusBar() {
  const now = useNow();
  const info = useAppInfo();
  const inventory = useInventory();
  const status = useStatus();
  const scan = status.data?.scan ?? null;
  const lastRefresh = parseTime(status.data?.lastRefreshAt ?? inventory.data?.view.generatedAt ?? null);
  const words = footerWords(
    scan,
    status.data?.lastRefreshAt ?? inventory.data?.view.generatedAt ?? null,
    Math.max(now, Date.now()),
    status.data ? "answered" : status.isError ? "failed" : "reading",
  );
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
      <span
        data-testid="last-refresh"
        data-outcome={words.outcome}
        data-refreshed-at={status.data?.lastRefreshAt ?? inventory.data?.view.generatedAt ?? undefined}
        className={words.outcome === "failed" || words.outcome === "partial" ? "sb-failed" : undefined}
        title={scan?.message ?? (lastRefresh ? formatExact(lastRefresh) : undefined)}
      >
        {status.data?.refreshing || inventory.isFetching ? "Refreshing… · " : ""}
        {words.text}
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
      {scan?.sources
        .filter((source) => source.outcome !== "complete" || source.kind !== "ledger")
        .map((source) => (
          <span
            key={source.sourceId}
            className={`origin-status source-${source.outcome}`}
            data-testid="source-status"
            data-source={source.sourceId}
            data-state={source.outcome}
            title={source.message ?? `${source.sourceId}: read completely`}
          >
            <span className="dot" aria-hidden="true" />
            <Text value={source.sourceId} title={false} />
            <span className="muted">{SOURCE_LABEL[source.outcome]}</span>
          </span>
        ))}
      {status.data?.origins.map((origin) => {
        // Main's state is the inventory shown's, which may be an earlier run's: said as such, with its time.
        const said = originWords(
          origin.origin,
          origin.state,
          scan,
          inventory.data?.view.generatedAt ?? null,
          Math.max(now, Date.now()),
        );
        return (
          <span
            key={origin.origin}
            className={`origin-status origin-${said.state}`}
            data-testid="origin-status"
            data-origin={origin.origin}
            data-state={said.state}
            title={`${origin.origin}: ${said.text}${origin.lastError ? ` (${origin.lastError})` : ""}`}
          >
            <span className="dot" aria-hidden="true" />
            <Text value={originHost(origin.origin)} title={false} />
            <span className="muted">{said.text}</span>
            <span className="count" title="CreateOS requests in the last minute / budget per minute">
              {origin.requestsLastMinute}/{origin.budgetPerMinute} req/min
            </span>
          </span>
        );
      })}
      {info.data && <span className="muted">v{info.data.version}</span>}
    </footer>
  );
}
