import { timeLeft } from "../../../../shared/domain/quarantine";
import { openQuarantineOf, useMainNow, useQuarantines } from "./use-quarantines";
import "./quarantine.css";

/** "quarantined · 3 h 20 min" beside a sandbox that is paused and waiting for its destroy. */
export function QuarantineChip({ sandboxId }: { sandboxId: string | null }) {
  const quarantines = useQuarantines();
  const now = useMainNow(quarantines.data);
  const quarantine = openQuarantineOf(quarantines.data, sandboxId);
  if (quarantine === null) return null;
  const left = quarantine.state === "waiting" ? timeLeft(quarantine.dueAt, now) : quarantine.state;
  return (
    <span
      className="quarantine-chip"
      data-testid="quarantine-chip"
      data-state={quarantine.state}
      title={`Quarantined: paused, destroyed at ${quarantine.dueAt} unless claimed`}
    >
      quarantined · {left}
    </span>
  );
}
