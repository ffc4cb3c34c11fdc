import type { ServerResponse } from "node:http";

// What a handler answers, before it meets the socket. Every JSON answer is a JSend envelope
//; raw bytes are only for file downloads, NDJSON only for streamed exec.

export type Headers = Record<string, string>;

export type Reply =
  | { kind: "json"; status: number; body: unknown; headers?: Headers }
  | { kind: "bytes"; status: number; body: Buffer; headers?: Headers }
  | { kind: "ndjson"; status: number; lines: unknown[]; headers?: Headers };

export function success(data: unknown, status = 200, headers?: Headers): Reply {
  return { kind: "json", status, body: { status: "success", data }, headers };
}

/** A 4xx: `data` is keyed by field ({ shape: "unknown shape: x" }) or, as the API does at times, a string. */
export function fail(status: number, data: Record<string, string> | string, headers?: Headers): Reply {
  return { kind: "json", status, body: { status: "fail", data }, headers };
}

/** A 5xx. */
export function error(status: number, message: string, headers?: Headers): Reply {
  return { kind: "json", status, body: { status: "error", message, code: status }, headers };
}

export function bytes(body: Buffer): Reply {
  return { kind: "bytes", status: 200, body, headers: { "content-type": "application/octet-stream" } };
}

export function ndjson(lines: unknown[]): Reply {
  return { kind: "ndjson", status: 200, lines };
}

export const sandboxNotFound = (): Reply => fail(404, "sandbox not found");

export function tooManyRequests(retryAfterSeconds: number): Reply {
  return fail(429, { rate_limit: "too many requests" }, { "retry-after": String(retryAfterSeconds) });
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Headers = { ...reply.headers };
  let body: Buffer;
  if (reply.kind === "json") {
    body = Buffer.from(JSON.stringify(reply.body));
    headers["content-type"] = "application/json; charset=utf-8";
  } else if (reply.kind === "ndjson") {
    body = Buffer.from(reply.lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    headers["content-type"] = "application/x-ndjson";
  } else {
    body = reply.body;
  }
  headers["content-length"] = String(body.length);
  res.writeHead(reply.status, headers);
  res.end(body);
}
