import type { Inventory } from "../../../shared/domain/inventory.js";
import { type ReconcileInput, reconcileSteps } from "../../../shared/domain/reconcile.js";
import { runInSlices, type SliceStats } from "../time-slices.js";

export type ClassifyStats = SliceStats;

/**
 * The pure rules of `reconcile` (shared/domain), run in slices of about `sliceMs` with a turn of the event
 * loop between them. Same code, same result as `reconcile` (the test proves it row by row); only the
 * schedule differs. At 20,000 rows the rules take a few hundred milliseconds, which the main process's
 * other work (IPC, the browser host's HTTP, job progress) must not wait for in one piece.
 */
export async function classifyInSlices(
  input: ReconcileInput,
  options: { sliceMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<{ inventory: Inventory; stats: ClassifyStats }> {
  const { value, stats } = await runInSlices(reconcileSteps(input), options);
  return { inventory: value, stats };
}
