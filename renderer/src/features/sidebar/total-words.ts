import { formatCount } from "../../lib/format";

/** How a sidebar total reads: its text, its words on hover, and what a screen reader hears beside it. */
export interface TotalWords {
  text: string;
  title: string;
  /** Said after the text to a screen reader when the total is of the leases read only; null when whole. */
  unread: string | null;
}

/**
 * A total of leases. One that adds only the leases read, while a source could not read them all, is a
 * lower bound: it reads "N+", never N as if every lease were counted.
 */
export function totalWords(total: number, complete: boolean): TotalWords {
  const count = formatCount(total);
  if (complete) return { text: count, title: `${count} leases`, unread: null };
  return {
    text: `${count}+`,
    title: `At least ${count} leases: counted among the leases read, as a source could not read them all`,
    unread: "at least; a source could not read every lease",
  };
}
