import type { PlanItem } from "../../../shared/domain/actions.js";
import { providerFailure } from "../actions/errors.js";
import type { SandboxRead } from "../actions/jobs/account-reader.js";
import { CHANGED, type RecheckResult, recheckLease, recheckUntracked } from "../actions/jobs/recheck.js";
import { type LeaseRereader, leaseKey } from "../actions/ports.js";
import type { CreateosClient } from "../createos/client.js";
import { isCreateosError } from "../createos/errors.js";

/** Why a pause was not sent on a plan item: the reason and the sentence a refusal carries. */
export interface PauseRefusal {
  reason: string;
  message: string;
}

export const PAUSE_RECHECK_MESSAGES = {
  sourceUnreadable: "The lease source could not be re-read just before pausing, so nothing was paused.",
} as const;

/** Nothing an earlier run sent is being looked for: a quarantine's pause is sent once, on a fresh plan. */
const FIRST_LOOK = { recheck: false, verifyOnly: false, seenLive: false } as const;

/**
 * The destroy engine's own last look, taken before a quarantine's pause is sent. The plan the guard made
 * may stand on an inventory up to a minute old, and a pause sent under a run that took the lease up since
 * stops that run's sandbox: so the row (or, for an untracked sandbox, every source) and the sandbox are
 * read again and judged as the engine's re-check judges them before a destroy. Null when the pause may
 * be sent; otherwise the engine's refusal (`changed-since-plan`, `claimed-since-plan`, or why it could
 * not be read), and nothing is paused.
 */
export async function recheckBeforePause(input: {
  item: PlanItem;
  client: CreateosClient;
  leases: LeaseRereader;
  now: Date;
}): Promise<PauseRefusal | null> {
  const { item, client, leases, now } = input;
  const sandboxId = item.sandboxId!;
  const { leaseId, sourceId } = item;
  let result: RecheckResult;
  try {
    if (leaseId !== null && sourceId !== null) {
      // A ledger's re-read gives every row on the sandbox; a row source gives the row itself.
      const [rows, read] = await Promise.all([
        leases.reread([{ sourceId, leaseId, sharedWith: [] }]),
        readSandbox(client, sandboxId, now),
      ]);
      const fresh = rows.get(leaseKey(sourceId, leaseId)) ?? null;
      result = recheckLease({ action: "destroy", item, fresh, read, now, continuation: FIRST_LOOK });
    } else {
      const [named, read] = await Promise.all([
        leases.namedSandboxes([sandboxId]),
        readSandbox(client, sandboxId, now),
      ]);
      result = recheckUntracked(item, read, FIRST_LOOK, named.has(sandboxId));
    }
  } catch {
    // Only the sources throw (a sandbox that cannot be read is judged as such): nothing proves it unheld.
    return { reason: "source-unreadable", message: PAUSE_RECHECK_MESSAGES.sourceUnreadable };
  }
  switch (result.kind) {
    case "act":
      return null;
    case "skip":
      return { reason: result.refusal.reason, message: result.refusal.message };
    case "provider-unreadable":
      return { reason: "provider-unknown", message: result.message };
    default:
      // Only a resumed item can be found done or awaiting its verification: never the case here.
      return { reason: CHANGED, message: "The sandbox could not be judged just before pausing." };
  }
}

async function readSandbox(client: CreateosClient, sandboxId: string, now: Date): Promise<SandboxRead> {
  const observedAt = now.toISOString();
  try {
    const { sandbox } = await client.getSandbox(sandboxId);
    return { kind: "listed", sandbox, observedAt };
  } catch (error) {
    if (isCreateosError(error) && error.code === "not-found") return { kind: "absent", observedAt };
    return { kind: "failed", failure: providerFailure(error) };
  }
}
