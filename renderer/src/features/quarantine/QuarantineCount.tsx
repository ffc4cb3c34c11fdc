import { useQuarantines } from "./use-quarantines";

/** The sidebar's count of open quarantines (pausing, waiting or being destroyed); nothing when none. */
export function QuarantineCount() {
  const open = useQuarantines().data?.quarantines.length ?? 0;
  if (open === 0) return null;
  return (
    <span
      className="badge badge-plain tone-stale sb-view-count"
      data-testid="nav-quarantines-count"
      title={`${open} open quarantine${open === 1 ? "" : "s"}`}
    >
      {open}
    </span>
  );
}
