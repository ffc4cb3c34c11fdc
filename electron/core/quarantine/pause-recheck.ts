import type { PlanItem } from "../../../shared/domain/actions.js";
import { unreadRowsAt } from "../../../shared/domain/unread-rows.js";
import { AccountReader } from "../actions/jobs/account-reader.js";
import { keylessGaps } from "../actions/jobs/keyless-gaps.js";
import { PacedAccount } from "../actions/jobs/paced-account.js";
import { CHANGED, type RecheckResult, recheckLease, recheckUntracked } from "../actions/jobs/recheck.js";
import { type JobRereader, leaseKey } from "../actions/ports.js";
import type { CreateosClient } from "../createos/client.js";

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
 * read again, as a job reads them, and judged as the engine's re-check judges them before a destroy. A
 * part of the sources that could not be read just now and may name the sandbox refuses the pause as it
 * refuses a destroy (`unread-part` for a row, `sources-incomplete` for an untracked sandbox), naming the
 * part. Null when the pause may be sent; otherwise the engine's refusal, and nothing is paused.
 */
export async function recheckBeforePause(input: {
  item: PlanItem;
  client: CreateosClient;
  leases: Pick<JobRereader, "rereadBatch" | "namesNow">;
  now: Date;
  /** The configured keys, cut out of the words of a part not read before a refusal says them. */
  knownSecrets?: () => Promise<ReadonlySet<string>>;
}): Promise<PauseRefusal | null> {
  const { item, client, leases, now } = input;
  const sandboxId = item.sandboxId!;
  const { leaseId, sourceId } = item;
  // Only one GET is asked of it: no list pass, whatever its size.
  const account = new AccountReader(new PacedAccount(client, item.credential!), {
    pageSize: 500,
    knownSize: 0,
  });
  let result: RecheckResult;
  try {
    if (leaseId !== null && sourceId !== null) {
      // A ledger's re-read gives every row on the sandbox; a row source gives the row itself.
      const [reread, read] = await Promise.all([
        leases.rereadBatch([{ sourceId, leaseId, sharedWith: [] }]),
        account.readOne(sandboxId),
      ]);
      const unread = unreadRowsAt(await keylessGaps(reread.gaps, input.knownSecrets))(item.origin);
      const fresh = reread.rows.get(leaseKey(sourceId, leaseId)) ?? null;
      result = recheckLease({ action: "destroy", item, fresh, read, now, continuation: FIRST_LOOK, unread });
    } else {
      const [names, read] = await Promise.all([leases.namesNow([sandboxId]), account.readOne(sandboxId)]);
      const unread = unreadRowsAt(await keylessGaps(names.gaps, input.knownSecrets))(item.origin);
      result = recheckUntracked(item, read, FIRST_LOOK, names.named.has(sandboxId), unread);
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
