/**
 * The address the page had still to write when it went. The address follows a search only once typing
 * pauses (`AddressWriter`), and a reload opens the address as it stands when the reload begins: a
 * history write from the page as it unloads comes too late for it. So the address waiting to be written
 * is kept in this tab's sessionStorage as the page goes, beside the address it was to replace, and the
 * next page takes it once: it follows it only when it opens on that same address (a reload), and
 * forgets it either way.
 */

const KEY = "leasekeeper.addressKeptForReload";

/** The part of `sessionStorage` used here (a map in tests). */
export interface KeptAddressStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

interface Kept {
  /** The address the page was at when it went (an absolute URL). */
  from: string;
  /** The address it had still to write (path, query and fragment). */
  to: string;
}

/** Keeps `to`, the address still to be written, for a reload of `from`. */
export function keepForReload(storage: KeptAddressStorage, from: string, to: string): void {
  // The launch token is taken out of the address before anything is written to it; should it still
  // be there, nothing is kept beside it.
  if (/[#&?]token=/.test(from) || /[#&?]token=/.test(to)) return;
  try {
    storage.setItem(KEY, JSON.stringify({ from, to } satisfies Kept));
  } catch {
    // Storage full or switched off: the reload opens on the address as it stands, as it would without.
  }
}

/** The address kept for a reload of `href`, or null; whatever was kept is forgotten. */
export function takeKeptForReload(storage: KeptAddressStorage, href: string): string | null {
  let raw: string | null;
  try {
    raw = storage.getItem(KEY);
    storage.removeItem(KEY);
  } catch {
    return null;
  }
  if (raw === null) return null;
  const kept = parseKept(raw);
  return kept !== null && kept.from === href ? kept.to : null;
}

/** The page as `followAddressKeptForReload` reads and writes it: the window, in the app. */
export interface KeptAddressPage {
  sessionStorage: KeptAddressStorage;
  location: { href: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
}

/**
 * Called once as the page opens, before anything else reads or writes the address (the launch token
 * leaves it when the first request is sent): a reload opens on the address its page had still to write.
 */
export function followAddressKeptForReload(page: KeptAddressPage): void {
  const kept = takeKeptForReload(page.sessionStorage, page.location.href);
  if (kept !== null) page.history.replaceState(null, "", kept);
}

function parseKept(raw: string): Kept | null {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== "object" || value === null) return null;
    const { from, to } = value as Record<string, unknown>;
    // Only an address of this page's own: a path, never another origin.
    return typeof from === "string" && typeof to === "string" && to.startsWith("/") && !to.startsWith("//")
      ? { from, to }
      : null;
  } catch {
    return null;
  }
}
