import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { API_PREFIX, EVENT_TICKET_PATH, EVENTS_PATH, TOKEN_HEADER } from "../../../shared/contract/bridge.js";
import { type ErrorCode, failure, type Result } from "../../../shared/contract/index.js";
import type { Logger } from "../app/log.js";
import { CONTENT_SECURITY_POLICY } from "../content-security-policy.js";
import { CoreError, isCoreError } from "../errors/core-error.js";
import { answerFor, HTTP_STATUS } from "../errors/host-answers.js";
import type { EventHub } from "../handlers/events.js";
import { encodedHandlerFor, type HandlerTable, handlerFor } from "../handlers/table.js";
import { HTML_CONTENT_TYPE, readRendererFile } from "../renderer-files/renderer-files.js";
import { isAllowedHost, isAllowedOrigin, newToken, TicketBook, tokenMatches } from "./guards.js";

/**
 * The browser host: the built renderer and the contract over loopback HTTP, behind the same handler
 * table as Electron. `POST /api/<channel>` with a JSON body answers a Result; `GET /api/events` streams
 * events (server-sent events); `GET /metrics` answers the core's Prometheus metrics when it has them.
 * Binds 127.0.0.1 only and checks Host, Origin and a per-launch token.
 */

const MAX_BODY_BYTES = 1024 * 1024;
const HEARTBEAT_MS = 25_000;

/** The renderer's one policy, the same as Electron's. */
export const PAGE_CSP = CONTENT_SECURITY_POLICY;

const COMMON_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
} as const;

const API_HEADERS = {
  ...COMMON_HEADERS,
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "Cache-Control": "no-store",
  "Content-Type": "application/json; charset=utf-8",
} as const;

export interface HttpHostOptions {
  handlers: HandlerTable;
  events: EventHub;
  log: Logger;
  /** The built renderer (dist/renderer); null or missing serves a page that says how to build it. */
  rendererDir: string | null;
  port?: number;
  token?: string;
  /** Served as `GET /metrics` (Prometheus text format); without it, /metrics is not found. */
  metrics?: MetricsEndpoint;
  /**
   * A token of its own for `/metrics`, so a Prometheus scrape config can hold it across launches; the
   * per-launch token is accepted there too. Either is sent as `Authorization: Bearer <token>`.
   */
  metricsToken?: string;
  /**
   * Serve the contract under `/api/` (default true). `watch --metrics-port` serves `/metrics` alone: its
   * API paths are not found, whatever token is sent.
   */
  serveApi?: boolean;
}

/** What a scrape of `/metrics` answers: the host knows nothing of how the text is made. */
export interface MetricsEndpoint {
  readonly contentType: string;
  render(): Promise<string>;
}

export const METRICS_PATH = "/metrics";

export interface HttpHost {
  readonly port: number;
  readonly origin: string;
  readonly token: string;
  /** The URL to open: the page reads the token from the fragment, which never reaches a server log. */
  readonly url: string;
  close(): Promise<void>;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...API_HEADERS, "Content-Length": Buffer.byteLength(text) });
  response.end(text);
}

/** An answer whose data is already JSON bytes (the inventory view main holds): written around them, not parsed. */
function sendEncoded(response: ServerResponse, data: Uint8Array): void {
  const head = Buffer.from('{"ok":true,"data":');
  const tail = Buffer.from("}");
  response.writeHead(200, {
    ...API_HEADERS,
    "Content-Length": head.byteLength + data.byteLength + tail.byteLength,
  });
  response.write(head);
  response.write(data);
  response.end(tail);
}

function sendFailure(response: ServerResponse, status: number, code: ErrorCode, message: string): void {
  sendJson(response, status, failure(code, message));
}

function tooLarge(): CoreError<"http"> {
  return new CoreError("http", "body-too-large", "The request body is larger than 1 MB.");
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > MAX_BODY_BYTES) {
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    request.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        done = true;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    request.on("error", () => {
      if (!done) reject(new CoreError("http", "body-unreadable", "The request body could not be read."));
    });
  });
}

export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const token = options.token ?? newToken();
  const tickets = new TicketBook();
  const streams = new Set<ServerResponse>();
  let port = 0;

  async function handleApi(request: IncomingMessage, response: ServerResponse, pathname: string, url: URL) {
    if (options.serveApi === false)
      return sendFailure(response, 404, "invalid-request", "This host serves no API.");
    if (
      !isAllowedOrigin(request.headers.origin, port) ||
      request.headers["sec-fetch-site"] === "cross-site"
    ) {
      refused(request, pathname, "foreign origin");
      return sendFailure(response, 403, "untrusted-sender", "Requests from other sites are refused.");
    }
    const tokenHeader = request.headers[TOKEN_HEADER.toLowerCase()];
    const tokenOk = tokenMatches(typeof tokenHeader === "string" ? tokenHeader : undefined, token);

    if (pathname === EVENTS_PATH) {
      if (request.method !== "GET")
        return sendFailure(response, 405, "invalid-request", "Use GET for events.");
      if (!tokenOk && !tickets.redeem(url.searchParams.get("ticket"))) {
        refused(request, pathname, "no valid event ticket or token");
        return sendFailure(response, 401, "untrusted-sender", "A valid event ticket or token is required.");
      }
      return openStream(response);
    }
    if (!tokenOk) {
      refused(request, pathname, "missing or wrong token");
      return sendFailure(response, 401, "untrusted-sender", "The access token is missing or wrong.");
    }
    if (request.method !== "POST") return sendFailure(response, 405, "invalid-request", "Use POST.");
    if (pathname === EVENT_TICKET_PATH)
      return sendJson(response, 200, { ok: true, data: { ticket: tickets.issue() } });

    const channel = pathname.slice(API_PREFIX.length);
    const handler = handlerFor(options.handlers, channel);
    if (!handler) return sendFailure(response, 404, "invalid-request", "Unknown channel.");
    const contentType = request.headers["content-type"] ?? "";
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      return sendFailure(response, 415, "invalid-request", "Send the request as application/json.");
    }
    const body = await readBody(request);
    let payload: unknown;
    if (body.length === 0) payload = undefined;
    else {
      try {
        payload = JSON.parse(body.toString("utf8"));
      } catch {
        return sendFailure(
          response,
          400,
          "invalid-request",
          `${channel}: the request body is not valid JSON.`,
        );
      }
    }
    const encoded = encodedHandlerFor(options.handlers, channel);
    if (encoded !== null) {
      const answer = await encoded(payload, { host: "browser" });
      if (answer.ok) return sendEncoded(response, answer.data);
      return sendJson(response, HTTP_STATUS[answer.error.code], answer);
    }
    const result: Result<unknown> = await handler(payload, { host: "browser" });
    sendJson(response, result.ok ? 200 : HTTP_STATUS[result.error.code], result);
  }

  function openStream(response: ServerResponse): void {
    response.writeHead(200, {
      ...COMMON_HEADERS,
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    response.write(": connected\n\n");
    streams.add(response);
    const unsubscribe = options.events.subscribe((channel, payload) => {
      response.write(`event: ${channel}\ndata: ${JSON.stringify(payload)}\n\n`);
    });
    const heartbeat = setInterval(() => response.write(": keep-alive\n\n"), HEARTBEAT_MS);
    heartbeat.unref();
    response.on("close", () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(response);
    });
  }

  /**
   * `GET /metrics`: behind the same checks as the API (Host, Origin, a token), the token sent the way a
   * Prometheus scrape sends one, `Authorization: Bearer <token>` (or the API's own header). Nothing of the
   * metrics is written before the token is checked.
   */
  async function handleMetrics(request: IncomingMessage, response: ServerResponse) {
    const plain = {
      ...COMMON_HEADERS,
      "Cache-Control": "no-store",
      "Content-Type": "text/plain; charset=utf-8",
    };
    if (
      !isAllowedOrigin(request.headers.origin, port) ||
      request.headers["sec-fetch-site"] === "cross-site"
    ) {
      refused(request, METRICS_PATH, "foreign origin");
      response.writeHead(403, plain);
      return response.end("Requests from other sites are refused.\n");
    }
    const given =
      bearerToken(request.headers.authorization) ?? headerValue(request.headers[TOKEN_HEADER.toLowerCase()]);
    const accepted =
      tokenMatches(given, token) ||
      (options.metricsToken !== undefined && tokenMatches(given, options.metricsToken));
    if (!accepted) {
      refused(request, METRICS_PATH, "missing or wrong token");
      response.writeHead(401, { ...plain, "WWW-Authenticate": 'Bearer realm="leasekeeper"' });
      return response.end("The access token is missing or wrong.\n");
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { ...plain, Allow: "GET, HEAD" });
      return response.end("Use GET for metrics.\n");
    }
    if (!options.metrics) {
      response.writeHead(404, plain);
      return response.end("This host serves no metrics.\n");
    }
    const body = Buffer.from(await options.metrics.render(), "utf8");
    response.writeHead(200, {
      ...COMMON_HEADERS,
      "Cache-Control": "no-store",
      "Content-Type": options.metrics.contentType,
      "Content-Length": body.length,
    });
    response.end(request.method === "HEAD" ? undefined : body);
  }

  async function handleStatic(request: IncomingMessage, response: ServerResponse, pathname: string) {
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { ...COMMON_HEADERS, "Content-Security-Policy": PAGE_CSP });
      return response.end();
    }
    const file = options.rendererDir ? await readRendererFile(options.rendererDir, pathname) : null;
    const content = file?.body ?? (pathname === "/" ? Buffer.from(NOT_BUILT_PAGE) : null);
    if (content === null) {
      response.writeHead(404, {
        ...COMMON_HEADERS,
        "Content-Security-Policy": PAGE_CSP,
        "Content-Type": "text/plain",
      });
      return response.end("Not found");
    }
    const type = file?.contentType ?? HTML_CONTENT_TYPE;
    response.writeHead(200, {
      ...COMMON_HEADERS,
      "Content-Security-Policy": PAGE_CSP,
      "Content-Type": type,
      "Content-Length": content.length,
      // Hashed asset names change with content; the page itself is always revalidated.
      "Cache-Control": pathname.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache",
    });
    response.end(request.method === "HEAD" ? undefined : content);
  }

  /**
   * A refusal is worth a line in the log (a page elsewhere may be probing the host), in fixed words: the
   * path only when it is a plain API path, never a header value, a query (the event ticket) or the token.
   */
  function refused(request: IncomingMessage, pathname: string, why: string): void {
    const where = /^\/api\/[\w:.-]{1,64}$/.test(pathname) || pathname === METRICS_PATH ? ` ${pathname}` : "";
    options.log.warn(`browser host refused ${request.method ?? "?"}${where}: ${why}`);
  }

  const server: Server = createServer((request, response) => {
    if (!isAllowedHost(request.headers.host, port)) {
      refused(request, "", "wrong Host header");
      response.writeHead(403, {
        ...COMMON_HEADERS,
        "Content-Type": "text/plain",
        "Cache-Control": "no-store",
      });
      response.end("Forbidden: wrong Host header.");
      return;
    }
    const url = new URL(request.url ?? "/", `http://127.0.0.1:${port}`);
    const pathname = url.pathname;
    const work =
      pathname === "/api" || pathname.startsWith(API_PREFIX)
        ? handleApi(request, response, pathname, url)
        : pathname === METRICS_PATH
          ? handleMetrics(request, response)
          : handleStatic(request, response, pathname);
    work.catch((error: unknown) => {
      const answer = answerFor(error);
      if (!answer.expected) options.log.error("browser host request failed", error);
      if (!response.headersSent) sendFailure(response, answer.httpStatus, answer.code, answer.message);
      else response.destroy();
      // The rest of an oversized body is not worth reading.
      if (isCoreError(error, "http") && error.code === "body-too-large") request.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  port = typeof address === "object" && address !== null ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;

  return {
    port,
    origin,
    token,
    url: `${origin}/#token=${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.end();
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The token of `Authorization: Bearer <token>`; undefined for any other header or none. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Leasekeeper</title></head>
<body><h1>Leasekeeper</h1><p>The user interface is not built yet. Run <code>npm run build</code>, then reload this page.</p></body></html>
`;
