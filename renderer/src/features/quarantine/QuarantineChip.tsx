import { timeLeft } from "../../../../shared/domain/quarantine";
import { openQuarantineOf, useMainNow, useQuarantines } from "./use-quarantines";
import "./quarantine.css";

/**
 * "⏸ 23 h" beside a sandbox that is paused and waiting for its destroy (read out as "quarantined,
 * destroyed in 23 h"): short enough for the
 * sandbox cell at 1280 px (whole hours, minutes under the last hour); the exact time left is in its title
 * and in the Quarantines view.
 */
export function QuarantineChip({ sandboxId }: { sandboxId: string | null }) {
  const quarantines = useQuarantines();
  const now = useMainNow(quarantines.data);
  const quarantine = openQuarantineOf(quarantines.data, sandboxId);
  if (quarantine === null) return null;
  const waiting = quarantine.state === "waiting";
  const left = waiting ? timeLeft(quarantine.dueAt, now) : quarantine.state;
  return (
    <span
      className="quarantine-chip"
      data-testid="quarantine-chip"
      data-state={quarantine.state}
      title={`Quarantined: paused, destroyed in ${left} (at ${quarantine.dueAt}) unless claimed`}
    >
      <span className="visually-hidden">quarantined, destroyed in </span>
      <span aria-hidden="true">⏸</span> {waiting ? shortLeft(left) : left}
    </span>
  );
}

/** "23 h 59 min" → "23 h"; "12 min" and "due now" stay. */
function shortLeft(left: string): string {
  const hours = /^(\d+) h/.exec(left);
  return hours ? `${hours[1]} h` : left;
}
