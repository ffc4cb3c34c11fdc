import type { ListingRead, ScanStatus } from "../../../../shared/contract";
import { formatRelative, parseTime } from "../../lib/format";

/**
 * The sentences a view says about where its data came from: the last scan's outcome, a listing that
 * failed, the last good list. Built from the status main sends (its messages are credential-free), and
 * the times, which only the renderer knows how to say relative to now.
 */

/** "14:02", the local time of day an operator reads off a clock (with the date when not today). */
export function clockTime(iso: string | null, nowMs: number): string {
  const ms = parseTime(iso);
  if (ms === 0) return "an unknown time";
  const at = new Date(ms);
  const time = at.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  return at.toDateString() === new Date(nowMs).toDateString()
    ? time
    : `${at.toLocaleDateString("en-GB", { day: "numeric", month: "short" })} ${time}`;
}

/** How one credential's listing went in the last scan that listed it; undefined when it was not listed. */
export function listingOf(
  scan: ScanStatus | null | undefined,
  credential: string,
  origin: string,
): ListingRead | undefined {
  return scan?.listings.find((entry) => entry.credential === credential && entry.origin === origin);
}

/**
 * "Cannot list demo account 1 at host: CreateOS could not be reached, 2m ago — its last good list was
 * from 14:02." The list itself is not shown: the rows that name its sandboxes were judged without it.
 */
export function listingFailedSentence(listing: ListingRead, nowMs: number): string {
  const message = (listing.message ?? `Cannot list ${listing.credential}.`).replace(/\.$/, "");
  const when = formatRelative(parseTime(listing.at), nowMs);
  const lastGood =
    listing.lastGoodAt === null
      ? "it has not listed completely since Leasekeeper started."
      : `its last good list was from ${clockTime(listing.lastGoodAt, nowMs)}.`;
  return `${message}, ${when} — ${lastGood}`;
}

/** "Cannot read Paperclip at host: …, 1m ago — showing the last good list from 14:02." */
export function scanFailedSentence(scan: ScanStatus, nowMs: number): string {
  const message = (scan.message ?? "The last scan failed.").replace(/\.$/, "");
  const when = formatRelative(parseTime(scan.at), nowMs);
  const shown =
    scan.shownFrom === null
      ? "nothing was read before it."
      : `showing the last good list from ${clockTime(scan.shownFrom, nowMs)}.`;
  return `${message}, ${when} — ${shown}`;
}

/** The listings that failed in the last scan, one sentence each. */
export function failedListings(scan: ScanStatus | null | undefined): ListingRead[] {
  return scan?.listings.filter((entry) => entry.outcome === "failed") ?? [];
}

/**
 * The footer's words for the last scan: what it read, and when. "Never" is main's answer that no scan
 * ran; while its status has not answered (or could not be read) and no inventory dates one, whether a
 * refresh happened is not known, and is not said.
 */
export function footerWords(
  scan: ScanStatus | null | undefined,
  lastRefreshAt: string | null,
  nowMs: number,
  status: "answered" | "reading" | "failed",
): { outcome: "complete" | "partial" | "failed" | "none" | "unknown"; text: string } {
  if (!scan) {
    const at = parseTime(lastRefreshAt);
    if (at) return { outcome: "none", text: `Last refresh ${formatRelative(at, nowMs)}` };
    if (status === "reading") return { outcome: "unknown", text: "Reading status…" };
    if (status === "failed") return { outcome: "unknown", text: "Last refresh not known" };
    return { outcome: "none", text: "Last refresh never" };
  }
  const when = formatRelative(parseTime(scan.at), nowMs);
  if (scan.outcome === "failed")
    return {
      outcome: "failed",
      text: `Last scan failed ${when} · showing the list from ${clockTime(scan.shownFrom, nowMs)}`,
    };
  const failed = failedListings(scan).length;
  if (failed > 0)
    return {
      outcome: "partial",
      text: `Last scan ${when}: could not list ${failed} of ${scan.listings.length} CreateOS accounts`,
    };
  if (scan.outcome === "partial")
    return { outcome: "partial", text: `Last scan ${when}: a source was not read completely` };
  return { outcome: "complete", text: `Last refresh ${when}` };
}

/**
 * What the footer's dot may say of one origin. Main's `state` is the inventory shown's (at startup the
 * stored inventory of an earlier run, after a failed scan the last good one), so "connected" is said
 * only when this run listed the origin (`scan`, absent before this run's first scan) and a listing
 * there succeeded; otherwise the dot says what the inventory shown read, and when.
 */
export function originWords(
  origin: string,
  shownState: "ok" | "down" | "unknown",
  scan: ScanStatus | null | undefined,
  shownAt: string | null,
  nowMs: number,
): { state: "ok" | "down" | "unknown" | "listed"; text: string } {
  const listings = scan?.listings.filter((listing) => listing.origin === origin) ?? [];
  if (listings.some((listing) => listing.outcome === "complete")) return { state: "ok", text: "connected" };
  if (listings.length > 0) return { state: "down", text: "down" };
  if (shownState === "unknown") return { state: "unknown", text: "not asked yet" };
  const when = clockTime(shownAt, nowMs);
  return shownState === "ok"
    ? { state: "listed", text: `listed at ${when}` }
    : { state: "down", text: `could not list at ${when}` };
}
