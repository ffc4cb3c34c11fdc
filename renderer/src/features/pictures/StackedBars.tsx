import { HEADLINES } from "../../../../shared/domain/codes";
import { unreadWords } from "../../state/environment-key";
import type { EnvironmentBar } from "./aggregate";

const ROW = 26;
const LABEL = 190;
const WIDTH = 760;
const COUNT = 130;

/** One horizontal bar per environment, split by headline. Colour plus a legend with text; exact counts on hover. */
export function StackedBars({ bars }: { bars: EnvironmentBar[] }) {
  const max = Math.max(1, ...bars.map((bar) => bar.total));
  const plot = WIDTH - LABEL - COUNT;
  const height = bars.length * ROW + 4;
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${height}`}
      width="100%"
      role="img"
      aria-label="Leases per environment by headline"
      data-testid="chart-environments"
      className="chart"
    >
      {bars.map((bar, at) => {
        let x = LABEL;
        const y = at * ROW + 4;
        return (
          <g
            key={bar.key}
            data-testid="chart-environment-bar"
            data-environment-id={bar.environmentId ?? undefined}
            data-unread={bar.unread !== null ? "true" : undefined}
          >
            <text x={LABEL - 8} y={y + 14} textAnchor="end" className="chart-label" direction="ltr">
              <title>{bar.name}</title>
              {bar.name.length > 26 ? `${bar.name.slice(0, 25)}…` : bar.name}
            </text>
            {HEADLINES.map((headline) => {
              const width = (bar.counts[headline] / max) * plot;
              if (width <= 0) return null;
              const rect = (
                <rect
                  key={headline}
                  x={x}
                  y={y}
                  width={Math.max(width, 1)}
                  height={ROW - 8}
                  className={`bar-${headline}`}
                >
                  <title>{`${bar.name}: ${bar.counts[headline]} ${headline}`}</title>
                </rect>
              );
              x += width;
              return rect;
            })}
            {bar.unread !== null ? (
              // No count where it is not known: not a bar of 0.
              <text x={x + 6} y={y + 14} className="chart-value">
                <title>{bar.unread.because}</title>
                {unreadWords(bar.unread)}
              </text>
            ) : (
              <text x={x + 6} y={y + 14} className="chart-value">
                {bar.flagged > 0 ? `${bar.flagged} flagged / ${bar.total}` : `${bar.total}`}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

export function Legend() {
  return (
    <div className="legend" aria-hidden="true">
      {HEADLINES.map((headline) => (
        <span key={headline} className="legend-item">
          <span className={`legend-swatch bar-${headline}`} />
          {headline}
        </span>
      ))}
    </div>
  );
}
