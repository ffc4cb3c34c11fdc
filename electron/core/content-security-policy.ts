/**
 * The one Content-Security-Policy of the renderer, in both hosts (Electron's app scheme and the browser
 * host). Scripts only from the app itself, no eval, no plugins, no framing, no form posts, no remote
 * connections. Inline style attributes are allowed because the table and tooltip libraries position
 * elements with them; inline script is not. Workers only from the app itself: the table's search runs
 * in one (docs/decisions/213-search-off-the-main-thread.md); no blob: or data: worker.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "worker-src 'self'",
].join("; ");
