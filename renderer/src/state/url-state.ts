import { HEADLINES, type Headline, PROVIDER_CODES, type ProviderCode } from "../../../shared/domain/codes";
import type { Scope, View } from "./ui-store";

/**
 * What the address keeps of the operator's view, so a reload or a shared link opens the same thing:
 * the view, the environment (or untracked account), the filter chips, the search and the open lease.
 * It lives in the fragment, which never reaches a server, as `#view=leases&env=…&headline=stale&q=…`.
 * The browser host's `token` shares the fragment on first load only; it is never written back.
 */
export interface UrlState {
  view: View;
  scope: Scope;
  headlines: ReadonlySet<Headline>;
  providers: ReadonlySet<ProviderCode>;
  search: string;
  drawerLeaseId: string | null;
}

const VIEWS: readonly View[] = [
  "leases",
  "pictures",
  "audit",
  "settings",
  "untracked",
  "quarantines",
  "janitor",
];
/** Kept short: the address bar is not a store; longer searches are cut rather than refused. */
const MAX_VALUE = 500;

export function encodeUrlState(state: UrlState): string {
  const params = new URLSearchParams();
  if (state.view !== "leases") params.set("view", state.view);
  if (state.scope.kind === "environment") params.set("env", state.scope.key);
  if (state.scope.kind === "untracked") {
    params.set("account", state.scope.credential);
    params.set("origin", state.scope.origin);
  }
  if (state.headlines.size > 0)
    params.set("headline", HEADLINES.filter((h) => state.headlines.has(h)).join(","));
  if (state.providers.size > 0)
    params.set("provider", PROVIDER_CODES.filter((p) => state.providers.has(p)).join(","));
  if (state.search !== "") params.set("q", state.search.slice(0, MAX_VALUE));
  if (state.drawerLeaseId !== null) params.set("lease", state.drawerLeaseId);
  return params.toString();
}

/**
 * Reads a fragment back. Anything it does not know (a view that no longer exists, a headline spelled
 * wrong, the token) is left out, never thrown: a stale link opens the default view, not an error.
 */
export function decodeUrlState(fragment: string): Partial<UrlState> {
  const params = new URLSearchParams(fragment.replace(/^#/, ""));
  const state: Partial<UrlState> = {};
  const view = params.get("view");
  if (view !== null && (VIEWS as readonly string[]).includes(view)) state.view = view as View;
  const env = params.get("env");
  const account = params.get("account");
  const origin = params.get("origin");
  if (env) {
    // The name is filled in from the inventory once it has loaded.
    state.scope = { kind: "environment", key: env.slice(0, MAX_VALUE * 2), name: "" };
    state.view ??= "leases";
  } else if (account && origin) {
    state.scope = {
      kind: "untracked",
      credential: account.slice(0, MAX_VALUE),
      origin: origin.slice(0, MAX_VALUE),
    };
    state.view = "untracked";
  }
  const headlines = listOf(params.get("headline"), HEADLINES);
  if (headlines) state.headlines = headlines;
  const providers = listOf(params.get("provider"), PROVIDER_CODES);
  if (providers) state.providers = providers;
  const search = params.get("q");
  if (search !== null) state.search = search.slice(0, MAX_VALUE);
  const lease = params.get("lease");
  if (lease) state.drawerLeaseId = lease.slice(0, MAX_VALUE);
  return state;
}

function listOf<T extends string>(value: string | null, vocabulary: readonly T[]): Set<T> | null {
  if (value === null) return null;
  const known = value
    .split(",")
    .filter((item): item is T => (vocabulary as readonly string[]).includes(item));
  return new Set(known);
}
