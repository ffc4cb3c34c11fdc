import { useQuarantines } from "./use-quarantines";

/** The sidebar's count of open quarantines (pausing, waiting or being destroyed); nothing when none. */
export function QuarantineCount() {
  const list = useQuarantines().data;
  const open = list?.quarantines.length ?? 0;
  if (open === 0) return null;
  // A list cut at its limit holds only some of the open ones: the count says "at least".
  const more = list?.cut === true;
  return (
    <span
      className="badge badge-plain tone-stale sb-view-count"
      data-testid="nav-quarantines-count"
      title={more ? `More than ${open} open quarantines` : `${open} open quarantine${open === 1 ? "" : "s"}`}
    >
      {more ? `${open}+` : open}
    </span>
  );
}
