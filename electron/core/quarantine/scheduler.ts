import type { QuarantineService } from "./quarantine-service.js";
import type { Unjudged } from "./unjudged.js";

/** How often a running app looks for quarantines that are due or claimed. */
export const QUARANTINE_PASS_MS = 30_000;

export interface QuarantineScheduler {
  /** Stops the timer and waits for a pass under way, so the store is never closed under it. */
  stop(): Promise<void>;
}

/**
 * Runs the quarantine pass now (what a previous process left half-done is finished first) and then on a
 * timer, in whichever host holds the core. A pass that fails is tried again on the next tick; its error
 * goes to the log, never out of the timer. So does a pass that could not judge its waiting quarantines
 * (no inventory): it did nothing, and that is not the same as nothing being due.
 */
export function startQuarantineScheduler(
  service: QuarantineService,
  options: {
    intervalMs?: number;
    onError?: (error: unknown) => void;
    /** A pass that could not read the inventory, so its waiting quarantines were not judged. */
    onUnjudged?: (unjudged: Unjudged) => void;
  } = {},
): QuarantineScheduler {
  let last: Promise<unknown> = Promise.resolve();
  let busy = false;
  const pass = () => {
    // A pass seeing a destroy through can outlast a tick; the next one starts after it, not beside it.
    if (busy) return;
    busy = true;
    last = service
      .runDue()
      .then(({ unjudged }) => {
        if (unjudged !== null) options.onUnjudged?.(unjudged);
      })
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        busy = false;
      });
  };
  pass();
  const timer = setInterval(pass, options.intervalMs ?? QUARANTINE_PASS_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await last;
    },
  };
}
