import type { InventoryView } from "../../../shared/contract";
import { api } from "../api";
import { fetchInventory } from "./inventory-request";

/**
 * The inventory asked for by the page's first script, before the app's own code is fetched, parsed and
 * run (about a second on a busy two-core machine, during which main's first scan is still running): the
 * answer travels while the app loads, and the app's first inventory query takes it instead of asking
 * again. It is the same request the query would send, answered the same way, failures included.
 *
 * Main may answer it with the inventory it stored last time and announce the scan that replaces it as
 * `inventory:changed`; the app listens to main's events only once it has loaded. Until then such an
 * announcement is kept here, so the app can tell that the answer it takes is no longer the latest.
 */
let answer: Promise<InventoryView> | null = null;
let announced: string | null = null;
let stopListening: (() => void) | null = null;

export function askForFirstInventory(): void {
  if (answer !== null || stopListening !== null) return;
  answer = fetchInventory(false);
  // A failure is the app's to show once it takes the answer; until then it is not an unhandled one.
  answer.catch(() => undefined);
  stopListening = api.on("inventory:changed", ({ generatedAt }) => {
    announced = generatedAt;
  });
}

/** The first request's answer, once; every later fetch asks main itself. Null when none was asked. */
export function takeFirstInventory(): Promise<InventoryView> | null {
  const taken = answer;
  answer = null;
  return taken;
}

/**
 * The `generatedAt` of the last inventory main announced before the app listened, once, or null. Called
 * once the app listens itself: this listener then goes (the event stream stays open for the app's).
 */
export function takeInventoryAnnouncedEarly(): string | null {
  stopListening?.();
  stopListening = null;
  const taken = announced;
  announced = null;
  return taken;
}
