import { useEffect } from "react";
import { environmentKey } from "../features/leases/row-model";
import { useUi } from "../state/ui-store";
import { decodeUrlState, encodeUrlState, type UrlState } from "../state/url-state";
import { useInventory } from "../state/use-inventory";
import { keepForReload } from "./address-kept-for-reload";
import { type AddressChange, AddressWriter } from "./address-writer";

const DEFAULTS: UrlState = {
  view: "leases",
  scope: { kind: "all" },
  headlines: new Set(),
  providers: new Set(),
  search: "",
  drawerLeaseId: null,
};

function fragment(): string {
  return window.location.hash.replace(/^#/, "");
}

/** Puts the state a fragment names into the store; what it does not name goes back to the default. */
export function applyUrlState(from: string): void {
  const decoded = { ...DEFAULTS, ...decodeUrlState(from) };
  const current = useUi.getState();
  // As choosing an environment in the sidebar does, another scope starts with nothing selected.
  const selection = sameScope(current.scope, decoded.scope)
    ? {}
    : { selected: new Set<string>(), anchorId: null };
  useUi.setState({ ...decoded, ...selection, cursorId: decoded.drawerLeaseId ?? current.cursorId });
}

/**
 * Called once before the first render, so a reload opens straight into the view the address names, or
 * the search the page before it had still to write there (the page's first script has put that address
 * back: `followAddressKeptForReload`).
 */
export function restoreUrlState(): void {
  applyUrlState(fragment());
}

type UiState = ReturnType<typeof useUi.getState>;

/** How the address follows a change of the store (see AddressWriter). */
function changeOf(state: UiState, previous: UiState): AddressChange {
  if (state.view !== previous.view || !sameScope(state.scope, previous.scope)) return "entry";
  const onlySearch =
    state.search !== previous.search &&
    state.headlines === previous.headlines &&
    state.providers === previous.providers &&
    state.drawerLeaseId === previous.drawerLeaseId;
  return onlySearch ? "search" : "replace";
}

function sameScope(a: UrlState["scope"], b: UrlState["scope"]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Keeps the address in step with the store. A change of view or environment is a history entry (Back
 * returns to it); filters, search and the open lease replace the current entry, the search once typing
 * pauses (a search still waiting when the page goes is kept for a reload of it).
 * Entries are built from the store alone, so the launch token, read and stripped before the first
 * render, never enters one.
 */
export function useUrlState(): void {
  useEffect(() => {
    const writer = new AddressWriter(window.history);
    let written = encodeUrlState(useUi.getState());
    const stopStore = useUi.subscribe((state, previous) => {
      const next = encodeUrlState(state);
      // Until the transport has taken the launch token out of the address, the address is not ours.
      if (next === written || new URLSearchParams(fragment()).has("token")) return;
      written = next;
      const url = `${window.location.pathname}${window.location.search}${next ? `#${next}` : ""}`;
      writer.follow(url, changeOf(state, previous));
    });
    const onNavigate = () => {
      const now = fragment();
      // The host's launch URL (`#token=…`) is read once, at start; it says nothing about the view.
      if (now === written || new URLSearchParams(now).has("token")) return;
      writer.drop();
      written = now;
      applyUrlState(now);
    };
    const onLeave = () => {
      const waiting = writer.waiting;
      if (waiting !== null) keepForReload(window.sessionStorage, window.location.href, waiting);
    };
    window.addEventListener("popstate", onNavigate);
    window.addEventListener("hashchange", onNavigate);
    window.addEventListener("pagehide", onLeave);
    return () => {
      stopStore();
      writer.flush();
      window.removeEventListener("popstate", onNavigate);
      window.removeEventListener("hashchange", onNavigate);
      window.removeEventListener("pagehide", onLeave);
    };
  }, []);

  // A restored environment knows only its key until the inventory arrives with its name.
  const inventory = useInventory();
  const environments = inventory.data?.view.environments;
  useEffect(() => {
    const scope = useUi.getState().scope;
    if (scope.kind !== "environment" || scope.name !== "" || !environments) return;
    const match = environments.find((ref) => environmentKey(ref.sourceId, ref.environmentId) === scope.key);
    if (match?.name) useUi.setState({ scope: { ...scope, name: match.name } });
  }, [environments]);
}
