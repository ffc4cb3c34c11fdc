import { formatExact, formatRelative } from "../lib/format";
import { useNow } from "../lib/now";

/** "3d ago", with the exact UTC time on hover. */
export function RelativeTime({ atMs }: { atMs: number }) {
  const now = useNow();
  if (!Number.isFinite(atMs) || atMs <= 0) return <span className="muted">—</span>;
  const exact = formatExact(atMs);
  return (
    <time dateTime={exact} title={exact}>
      {formatRelative(atMs, now)}
    </time>
  );
}
