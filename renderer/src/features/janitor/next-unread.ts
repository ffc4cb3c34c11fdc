import type { PlanUnread } from "../../../../shared/contract";
import { UNREAD_UNKNOWN } from "../../../../shared/domain/janitor";
import { originHost } from "../../lib/format";

/** The parts not read that the view names; the rest are counted. */
const LISTED = 10;

/**
 * What the next pass's plan could not see, in words: the inventory it planned over left these unread,
 * so no rule could select their rows, and "would select nothing" says nothing of them. Null when that
 * inventory was read whole.
 */
export function nextUnreadWords(unread: PlanUnread | null): { heading: string; lines: string[] } | null {
  if (unread === null) return { heading: `${capitalized(UNREAD_UNKNOWN)}.`, lines: [] };
  const lines = [
    ...unread.gaps.map((gap) =>
      gap.environment === null
        ? `${gap.source}: ${gap.message}`
        : `Leases of ${gap.environment.name} not read: ${gap.message}`,
    ),
    ...unread.accounts.map(
      (account) =>
        `Account ${account.credential} at ${originHost(account.origin)} could not be listed${
          account.reason === null ? "" : `: ${account.reason}`
        }`,
    ),
  ];
  // The gaps listed may be the first of more: the count is of every one.
  const parts = unread.gapCount + unread.accounts.length;
  if (parts === 0) return null;
  const listed = lines.slice(0, LISTED);
  const more = parts - listed.length;
  return {
    heading: `Planned over a partial read: it selects only among the rows read, and ${parts} ${
      parts === 1 ? "part was" : "parts were"
    } not read.`,
    lines: more > 0 ? [...listed, `…and ${more} more`] : listed,
  };
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
