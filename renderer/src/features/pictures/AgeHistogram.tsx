import type { AgeBucket } from "./aggregate";

const WIDTH = 760;
const HEIGHT = 220;
const AXIS = 28;
const TOP = 16;

/** Stale and leaking leases by how long they have been held, stacked per age bucket. */
export function AgeHistogram({ buckets }: { buckets: AgeBucket[] }) {
  const max = Math.max(1, ...buckets.map((bucket) => bucket.stale + bucket.leaking));
  const slot = (WIDTH - 20) / buckets.length;
  const plot = HEIGHT - AXIS - TOP;
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width="100%"
      role="img"
      aria-label="Age of leaking and stale leases"
      data-testid="chart-ages"
      className="chart"
    >
      <line x1={10} x2={WIDTH - 10} y1={HEIGHT - AXIS} y2={HEIGHT - AXIS} className="chart-axis" />
      {buckets.map((bucket, at) => {
        const x = 10 + at * slot + slot * 0.2;
        const width = slot * 0.6;
        const leakingHeight = (bucket.leaking / max) * plot;
        const staleHeight = (bucket.stale / max) * plot;
        const base = HEIGHT - AXIS;
        const total = bucket.stale + bucket.leaking;
        return (
          <g key={bucket.label}>
            {bucket.stale > 0 && (
              <rect x={x} y={base - staleHeight} width={width} height={staleHeight} className="bar-stale">
                <title>{`${bucket.label}: ${bucket.stale} stale`}</title>
              </rect>
            )}
            {bucket.leaking > 0 && (
              <rect
                x={x}
                y={base - staleHeight - leakingHeight}
                width={width}
                height={leakingHeight}
                className="bar-leaking"
              >
                <title>{`${bucket.label}: ${bucket.leaking} leaking`}</title>
              </rect>
            )}
            {total > 0 && (
              <text
                x={x + width / 2}
                y={base - staleHeight - leakingHeight - 4}
                textAnchor="middle"
                className="chart-value"
              >
                {total}
              </text>
            )}
            <text x={x + width / 2} y={HEIGHT - 10} textAnchor="middle" className="chart-label">
              {bucket.label}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
