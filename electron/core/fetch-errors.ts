/**
 * Node's fetch (undici) reports `redirect: "error"` as a TypeError whose cause says "unexpected
 * redirect"; every client in the core refuses redirects, so a request never carries a key elsewhere.
 */
export function isRefusedRedirect(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error && /redirect/i.test(cause.message);
}
