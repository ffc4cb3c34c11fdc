export { isAllowedHost, isAllowedOrigin, newToken, TicketBook, tokenMatches } from "./guards.js";
export { type HttpHost, type HttpHostOptions, MAX_BODY_BYTES, PAGE_CSP, startHttpHost } from "./host.js";
export { type BrowserHostLaunch, launchBrowserHost, type RunningBrowserHost, servingLine } from "./launch.js";
