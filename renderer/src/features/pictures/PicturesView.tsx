import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { UntrackedSandboxView } from "../../../../shared/contract";
import { api } from "../../api";
import { Badge } from "../../components/Badge";
import { EmptyState, ErrorState, SkeletonRows } from "../../components/States";
import { errorMessage } from "../../lib/errors";
import { formatCount, formatMemory, plural } from "../../lib/format";
import { useNow } from "../../lib/now";
import { queryKeys } from "../../state/query-keys";
import { useInventory } from "../../state/use-inventory";
import { AgeHistogram } from "./AgeHistogram";
import { ageHistogram, environmentBars, holdings, runningCost } from "./aggregate";
import { Legend, StackedBars } from "./StackedBars";
import { unlistedAccountNames, untrackedOfView } from "./untracked-evidence";
import "./pictures.css";

const NONE: readonly UntrackedSandboxView[] = [];
const NO_NAMES: readonly string[] = [];
/** Up to this many accounts not listed are named in the line; more are counted there, and named on hover. */
const NAMED_UNLISTED = 3;

/** Pictures of the same inventory: headlines per environment, what flagged sandboxes hold, and their ages. */
export function PicturesView() {
  const inventory = useInventory();
  const now = useNow();
  const untracked = useQuery({
    queryKey: queryKeys.untracked("", ""),
    queryFn: () => api.invoke("untracked:list", {}),
  });
  // Until the untracked list of the scan shown is read (or when it failed) its line is unknown, never 0:
  // an answer in hand for the scan before is not this one's.
  const listed = inventory.data ? untrackedOfView(untracked.data, inventory.data.view) : null;
  const untrackedSandboxes = listed?.sandboxes ?? null;
  const uncertainSandboxes = listed?.uncertain ?? NONE;
  // An account the scan could not list has untracked sandboxes no one counted: said, not taken as none.
  const unlistedNames = useMemo(
    () => (inventory.data ? unlistedAccountNames(inventory.data.view) : NO_NAMES),
    [inventory.data],
  );
  const unlisted = unlistedNames.length;
  const bars = useMemo(() => (inventory.data ? environmentBars(inventory.data.view) : []), [inventory.data]);
  const held = useMemo(
    () => (inventory.data ? holdings(inventory.data.rows, untrackedSandboxes, uncertainSandboxes) : []),
    [inventory.data, untrackedSandboxes, uncertainSandboxes],
  );
  const uncertain = held.find((holding) => holding.label === "untracked")?.uncertain ?? 0;
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: () => api.invoke("settings:get") });
  const vcpuHour = settings.data?.pricePerVcpuHour ?? null;
  const gibHour = settings.data?.pricePerGibHour ?? null;
  // The same reckoning as the first screen's cost line: running sandboxes, shapes times hours held.
  const cost = useMemo(
    () =>
      inventory.data
        ? runningCost(inventory.data.rows, untrackedSandboxes, now, { vcpuHour, gibHour })
        : null,
    [inventory.data, untrackedSandboxes, now, vcpuHour, gibHour],
  );
  const ages = useMemo(
    () => (inventory.data ? ageHistogram(inventory.data.rows, now) : []),
    [inventory.data, now],
  );

  if (inventory.isPending) return <SkeletonRows rows={10} />;
  if (inventory.isError)
    return <ErrorState message={errorMessage(inventory.error)} onRetry={() => void inventory.refetch()} />;
  if (inventory.data.rows.length === 0 && bars.length === 0) {
    return (
      <EmptyState title="Nothing to picture yet">
        Add a source in Settings; the pictures draw from its leases.
      </EmptyState>
    );
  }
  const agedTotal = ages.reduce((sum, bucket) => sum + bucket.stale + bucket.leaking, 0);
  // With a source incomplete, the leases not read may be leaking or stale too.
  const incomplete = inventory.data.view.gapCount > 0;

  return (
    // A region of charts with nothing to tab to: focusable itself, so keyboard users can scroll it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keys
    <section className="view-scroll pictures" data-testid="pictures-view" tabIndex={0} aria-label="Pictures">
      <section className="card">
        <h2>Headlines per environment</h2>
        <Legend />
        <StackedBars bars={bars} />
      </section>

      <section className="card">
        <h2>What the flagged sandboxes hold</h2>
        <p className="muted">
          Sandboxes CreateOS still lists alive behind flagged leases, and untracked ones no lease names: what
          leaving them costs.
        </p>
        <table className="data-table holdings" data-testid="holdings">
          <thead>
            <tr>
              <th>Headline</th>
              <th>Sandboxes</th>
              <th>vCPU</th>
              <th>Memory</th>
            </tr>
          </thead>
          <tbody>
            {held.map((holding) => (
              <tr
                key={holding.label}
                data-testid="holding"
                data-label={holding.label}
                data-sandboxes={holding.sandboxes ?? undefined}
                data-unchecked={holding.unchecked}
              >
                <td>
                  <Badge tone={holding.tone} label={holding.label} />
                </td>
                <td className="count">
                  {holding.sandboxes === null ? (
                    <span className="muted" title="The untracked sandboxes of this inventory are not read">
                      {untracked.isError ? "not read" : "…"}
                    </span>
                  ) : holding.sandboxes === 0 &&
                    (holding.unchecked > 0 ||
                      holding.uncertain > 0 ||
                      (holding.label === "untracked" && unlisted > 0)) ? (
                    // None among those read is not none: the rest could not be told.
                    "none known"
                  ) : (
                    formatCount(holding.sandboxes)
                  )}
                  {holding.unchecked > 0 && (
                    <span className="muted"> (+{formatCount(holding.unchecked)} could not be checked)</span>
                  )}
                  {holding.uncertain > 0 && (
                    <span
                      className="muted"
                      data-testid="holding-uncertain"
                      data-count={holding.uncertain}
                      title="Unnamed sandboxes at an origin a source could not read completely: a lease not read may name them"
                    >
                      {" "}
                      (+{formatCount(holding.uncertain)} uncertain)
                    </span>
                  )}
                  {holding.label === "untracked" && unlisted > 0 && (
                    <span
                      className="muted"
                      data-testid="pictures-unlisted"
                      data-count={unlisted}
                      title={`Accounts the scan shown could not list: ${unlistedNames.join(", ")}. Their untracked sandboxes are not counted.`}
                    >
                      {" "}
                      ({plural(unlisted, "account")} not listed
                      {unlisted <= NAMED_UNLISTED ? `: ${unlistedNames.join(", ")}` : ""})
                    </span>
                  )}
                </td>
                <td className="count">
                  {holding.sized > 0 ? formatCount(Math.round(holding.vcpu * 100) / 100) : "—"}
                  {holding.sized > 0 && holding.sized < (holding.sandboxes ?? 0) && (
                    <span className="muted"> ({holding.sized} sized)</span>
                  )}
                </td>
                <td className="count">{holding.sized > 0 ? formatMemory(holding.memMib) : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {cost && cost.sandboxes > 0 && (
          <p data-testid="pictures-running-cost">
            {formatCount(cost.sandboxes)} of them running{cost.untrackedRead ? "" : " behind flagged leases"}:{" "}
            {formatCount(Math.round(cost.vcpuHours))} vCPU·h and {formatCount(Math.round(cost.gibHours))}{" "}
            GiB·h so far
            {cost.money !== null
              ? `, ≈ $${cost.money.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
              : " (a price per vCPU-hour and per GiB-hour in Settings gives an estimate)"}
            .
          </p>
        )}
        {cost && (cost.unchecked > 0 || !cost.untrackedRead || uncertain > 0 || unlisted > 0) && (
          <p className="muted" data-testid="pictures-cost-unread">
            {cost.unchecked > 0 &&
              `${formatCount(cost.unchecked)} behind flagged leases could not be checked: CreateOS could not tell whether they run. `}
            {!cost.untrackedRead &&
              (untracked.isError
                ? "The untracked sandboxes could not be read; what they cost is left out. "
                : "The untracked sandboxes are not read yet; what they cost is left out. ")}
            {uncertain > 0 &&
              `${formatCount(uncertain)} uncertain: a lease not read may name them; what they cost is left out. `}
            {unlisted > 0 &&
              `${plural(unlisted, "account")} not listed: what their sandboxes cost is not known.`}
          </p>
        )}
        {held.some((holding) => (holding.sandboxes ?? 0) > holding.sized) && (
          <p className="muted footnote">
            “—”: the inventory does not carry the shape of a leased sandbox; open a lease to see its shape,
            vCPU and memory.
          </p>
        )}
      </section>

      <section className="card" data-testid="pictures-ages">
        <h2>How long leaking and stale leases have been held</h2>
        <div className="legend" aria-hidden="true">
          <span className="legend-item">
            <span className="legend-swatch bar-leaking" />
            leaking
          </span>
          <span className="legend-item">
            <span className="legend-swatch bar-stale" />
            stale
          </span>
        </div>
        {agedTotal === 0 ? (
          <p className="muted">No leaking or stale lease{incomplete ? " among the leases read" : ""}.</p>
        ) : (
          <AgeHistogram buckets={ages} />
        )}
        {incomplete && agedTotal > 0 && (
          <p className="muted footnote">Counted among the leases read: a source could not read them all.</p>
        )}
      </section>
    </section>
  );
}
