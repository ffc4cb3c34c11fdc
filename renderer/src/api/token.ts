/**
 * The browser host's per-launch token. It arrives once in the URL the host prints (`#token=…`), moves to
 * sessionStorage (gone when the tab closes) and is stripped from the address bar, so it does not linger
 * in history, bookmarks or a screenshot of the URL.
 */
export const TOKEN_STORAGE_KEY = "leasekeeper.token";

export interface TokenEnvironment {
  location: { hash: string; search: string; pathname: string; href: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
}

export function takeToken(env: TokenEnvironment): string | null {
  const fragment = new URLSearchParams(env.location.hash.replace(/^#/, ""));
  const fromHash = fragment.get("token");
  const fromQuery = new URLSearchParams(env.location.search).get("token");
  const fromUrl = fromHash ?? fromQuery;
  if (fromUrl) {
    env.sessionStorage.setItem(TOKEN_STORAGE_KEY, fromUrl);
    const url = new URL(env.location.href);
    url.searchParams.delete("token");
    // The rest of the fragment is the view a link opens (see the app's url-state); only the token goes.
    fragment.delete("token");
    const rest = fragment.toString();
    env.history.replaceState(null, "", `${url.pathname}${url.search}${rest ? `#${rest}` : ""}`);
    return fromUrl;
  }
  return env.sessionStorage.getItem(TOKEN_STORAGE_KEY);
}
