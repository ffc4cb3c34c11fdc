/**
 * One action per sandbox at a time, across the whole process (every engine, every job). The plugin
 * refuses a second release or destroy of a sandbox while one is in flight rather than merging them, and
 * so does Leasekeeper: the second caller is told, and nothing is queued behind the first.
 *
 * Sandbox ids are unique per origin, so the key is origin plus id. Taking a slot is synchronous, so two
 * jobs started in the same tick cannot both pass.
 */

const inFlight = new Map<string, string>();

function keyOf(origin: string, sandboxId: string): string {
  return `${origin}\u0000${sandboxId}`;
}

/** Takes the slot for `holder`; false when another holder already has it. */
export function tryAcquireSandbox(origin: string, sandboxId: string, holder: string): boolean {
  const key = keyOf(origin, sandboxId);
  if (inFlight.has(key)) return false;
  inFlight.set(key, holder);
  return true;
}

/** Frees the slot, only if `holder` is the one holding it. */
export function releaseSandbox(origin: string, sandboxId: string, holder: string): void {
  const key = keyOf(origin, sandboxId);
  if (inFlight.get(key) === holder) inFlight.delete(key);
}
