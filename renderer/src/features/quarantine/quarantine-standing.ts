import type { QuarantineList } from "../../../../shared/contract";
import type { Quarantine } from "../../../../shared/domain/quarantine";
import { errorMessage } from "../../lib/errors";

/**
 * Whether a sandbox is quarantined, as main's list of open quarantines says: `none` only when the list
 * was read whole and does not hold it. While the list is read, when its read failed, or when it is cut
 * and does not hold the sandbox, it is not known, and the drawer does not offer to quarantine it.
 */
export type QuarantineStanding =
  | { kind: "open"; quarantine: Quarantine }
  | { kind: "none" }
  | { kind: "reading" }
  | { kind: "unread"; sentence: string };

export function quarantineStanding(
  read: { data: QuarantineList | undefined; error: unknown },
  sandboxId: string,
): QuarantineStanding {
  const quarantine = read.data?.quarantines.find((entry) => entry.sandboxId === sandboxId);
  // One the list held stays shown with its countdown; main decides on a cancel all the same.
  if (quarantine !== undefined) return { kind: "open", quarantine };
  // A read that failed after an earlier one leaves that list in hand: it no longer says "not quarantined".
  if (read.error !== null && read.error !== undefined)
    return {
      kind: "unread",
      sentence: `Whether it is quarantined could not be read: ${errorMessage(read.error)}`,
    };
  if (read.data === undefined) return { kind: "reading" };
  if (read.data.cut)
    return {
      kind: "unread",
      sentence:
        "Whether it is quarantined is not known: the list of open quarantines is cut at the newest, and it does not hold this sandbox.",
    };
  return { kind: "none" };
}
