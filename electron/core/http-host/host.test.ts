import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TOKEN_HEADER } from "../../../shared/contract/bridge.js";
import { CoreError } from "../errors/core-error.js";
import { FIXED_MESSAGES } from "../errors/host-answers.js";
import { EventHub } from "../handlers/events.js";
import { createHandlerTable, type HandlerTable } from "../handlers/table.js";
import { fakeCore } from "../handlers/testing/fake-calls.js";
import { TicketBook } from "./guards.js";
import { type HttpHost, PAGE_CSP, startHttpHost } from "./host.js";

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http, not fetch: fetch will not let a test send a forged Host header. */
function raw(
  port: number,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setHost?: boolean;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers,
        setHost: options.setHost ?? true,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      // The host drops an oversize upload mid-stream; the status it sent first is what counts.
      if (error.code === "ECONNRESET" || error.code === "EPIPE")
        resolve({ status: -1, headers: {}, body: "" });
      else reject(error);
    });
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

let host: HttpHost;
let table: HandlerTable;
let events: EventHub;
let rendererDir: string;

beforeAll(async () => {
  rendererDir = mkdtempSync(path.join(tmpdir(), "lk-dist-"));
  mkdirSync(path.join(rendererDir, "assets"));
  writeFileSync(
    path.join(rendererDir, "index.html"),
    "<!doctype html><title>Leasekeeper</title><div id=root></div>",
  );
  writeFileSync(path.join(rendererDir, "assets", "app.js"), "console.log(1)");
  table = createHandlerTable(fakeCore().calls, { error: vi.fn() });
  events = new EventHub();
  host = await startHttpHost({
    handlers: table,
    events,
    log: { info() {}, warn() {}, error() {} },
    rendererDir,
  });
});

afterAll(async () => {
  await host.close();
  rmSync(rendererDir, { recursive: true, force: true });
});

function api(channel: string, body: unknown, headers: Record<string, string> = {}) {
  return raw(host.port, {
    method: "POST",
    path: `/api/${channel}`,
    headers: {
      Host: `127.0.0.1:${host.port}`,
      "Content-Type": "application/json",
      [TOKEN_HEADER]: host.token,
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("browser host: who may call", () => {
  it("prints a URL on 127.0.0.1 that carries the token in the fragment", () => {
    expect(host.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/#token=[A-Za-z0-9_-]{43}$`));
  });

  it("refuses a call without a token with 401", async () => {
    const response = await api("app:info", {}, { [TOKEN_HEADER]: "" });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ ok: false, error: { code: "untrusted-sender" } });
  });

  it("refuses a wrong token with 401", async () => {
    expect((await api("app:info", {}, { [TOKEN_HEADER]: `${host.token.slice(0, -1)}x` })).status).toBe(401);
  });

  it.each(["evil.example", "evil.example:PORT", "127.0.0.1:1", "localhost", "127.0.0.1.evil.example:PORT"])(
    "refuses Host %s with 403 (DNS rebinding)",
    async (hostHeader) => {
      const response = await api("app:info", {}, { Host: hostHeader.replace("PORT", String(host.port)) });
      expect(response.status).toBe(403);
      const page = await raw(host.port, {
        path: "/",
        headers: { Host: hostHeader.replace("PORT", String(host.port)) },
      });
      expect(page.status).toBe(403);
    },
  );

  it("refuses a request with no Host header at all", async () => {
    const response = await raw(host.port, { path: "/", setHost: false });
    expect([400, 403]).toContain(response.status);
  });

  it("accepts localhost:PORT as well as 127.0.0.1:PORT", async () => {
    expect((await api("app:info", {}, { Host: `localhost:${host.port}` })).status).toBe(200);
  });

  it.each(["https://evil.example", "http://127.0.0.1:1", "http://localhost:5173", "null"])(
    "refuses Origin %s with 403, even with the right token",
    async (origin) => {
      const response = await api("app:info", {}, { Origin: origin });
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toMatchObject({ ok: false, error: { code: "untrusted-sender" } });
    },
  );

  it("refuses a cross-site fetch by Sec-Fetch-Site even without an Origin", async () => {
    expect((await api("app:info", {}, { "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
  });

  it("accepts its own Origin", async () => {
    expect((await api("app:info", {}, { Origin: `http://127.0.0.1:${host.port}` })).status).toBe(200);
  });
});

describe("browser host: the contract", () => {
  it.each([
    ["app:info", {}],
    ["inventory:get", {}],
    ["settings:get", {}],
    ["status:get", {}],
    ["jobs:get", { jobId: "job-1" }],
    ["audit:export", { format: "json" }],
  ])("answers %s exactly as the handler table does", async (channel, request) => {
    const response = await api(channel, request);
    expect(response.status).toBe(200);
    const direct = await table[channel as keyof HandlerTable](request, { host: "browser" });
    expect(JSON.parse(response.body)).toEqual(JSON.parse(JSON.stringify(direct)));
  });

  it("answers a schema violation with the handler table's invalid-request, as 400", async () => {
    const response = await api("jobs:get", { jobId: 7 });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(await table["jobs:get"]({ jobId: 7 }, { host: "browser" }));
  });

  it("answers a malformed JSON body with 400 and a clean invalid-request", async () => {
    const response = await api("app:info", '{"oops": ');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      ok: false,
      error: { code: "invalid-request", message: "app:info: the request body is not valid JSON." },
    });
  });

  it("refuses a body over 1 MB with 413", async () => {
    const response = await api("app:info", JSON.stringify({ pad: "x".repeat(1024 * 1024 + 10) }));
    expect([413, -1]).toContain(response.status);
    const chunked = await raw(host.port, {
      method: "POST",
      path: "/api/app:info",
      headers: {
        Host: `127.0.0.1:${host.port}`,
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked",
        [TOKEN_HEADER]: host.token,
      },
      body: JSON.stringify({ pad: "y".repeat(1024 * 1024 + 10) }),
    });
    expect([413, -1]).toContain(chunked.status);
    // and it keeps serving
    expect((await api("app:info", {})).status).toBe(200);
  });

  it("refuses a non-JSON content type (no form posts) with 415", async () => {
    expect(
      (await api("app:info", "a=b", { "Content-Type": "application/x-www-form-urlencoded" })).status,
    ).toBe(415);
    expect((await api("app:info", "{}", { "Content-Type": "text/plain" })).status).toBe(415);
  });

  it("answers an unknown channel with 404 invalid-request, and GET with 405", async () => {
    expect((await api("shell:exec", {})).status).toBe(404);
    expect((await api("__proto__", {})).status).toBe(404);
    const get = await raw(host.port, {
      path: "/api/app:info",
      headers: { Host: `127.0.0.1:${host.port}`, [TOKEN_HEADER]: host.token },
    });
    expect(get.status).toBe(405);
  });

  it("sets no-store, nosniff, a CSP and no-referrer on API answers", async () => {
    const response = await api("app:info", {});
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["referrer-policy"]).toBe("no-referrer");
    expect(response.headers["content-security-policy"]).toContain("default-src 'none'");
  });
});

describe("browser host: a core call's failure", () => {
  let failing: HttpHost;
  const logged = vi.fn();

  beforeAll(async () => {
    const core = fakeCore();
    core.calls["jobs:get"] = ({ jobId }) => {
      if (jobId === "running") throw new CoreError("action", "job-running", "The job is still running.");
      if (jobId === "no-vault") throw new CoreError("vault", "read-only", "No key can be saved here.");
      throw new Error("connect postgres://lk:s3cret-canary@db.internal failed");
    };
    failing = await startHttpHost({
      handlers: createHandlerTable(core.calls, { error: logged }),
      events: new EventHub(),
      log: { info() {}, warn() {}, error() {} },
      rendererDir: null,
    });
  });

  afterAll(() => failing.close());

  function call(jobId: string) {
    return raw(failing.port, {
      method: "POST",
      path: "/api/jobs:get",
      headers: {
        Host: `127.0.0.1:${failing.port}`,
        "Content-Type": "application/json",
        [TOKEN_HEADER]: failing.token,
      },
      body: JSON.stringify({ jobId }),
    });
  }

  it.each([
    ["running", 409, "conflict", "The job is still running."],
    ["no-vault", 409, "refused", "No key can be saved here."],
  ])(
    "answers %s with HTTP %i and the mapped code, in the error's own words",
    async (jobId, status, code, message) => {
      const response = await call(jobId);
      expect(response.status).toBe(status);
      expect(JSON.parse(response.body)).toEqual({ ok: false, error: { code, message } });
    },
  );

  it("answers an error nobody meant to raise with 500 and the fixed sentence, never its text", async () => {
    const response = await call("boom");
    expect(response.status).toBe(500);
    expect(JSON.parse(response.body)).toEqual({
      ok: false,
      error: { code: "internal", message: FIXED_MESSAGES.internal },
    });
    expect(response.body).not.toContain("s3cret");
    expect(logged).toHaveBeenCalledTimes(1);
  });
});

describe("browser host: the page", () => {
  it("serves the built renderer with the CSP and security headers, without a token", async () => {
    const page = await raw(host.port, { path: "/", headers: { Host: `127.0.0.1:${host.port}` } });
    expect(page.status).toBe(200);
    expect(page.body).toContain("<title>Leasekeeper</title>");
    expect(page.headers["content-security-policy"]).toBe(PAGE_CSP);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    const asset = await raw(host.port, {
      path: "/assets/app.js",
      headers: { Host: `127.0.0.1:${host.port}` },
    });
    expect(asset.headers["content-type"]).toContain("text/javascript");
  });

  it.each(["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2f..%2fetc%2fpasswd", "/%00"])(
    "never serves a file outside the renderer folder: %s",
    async (requestPath) => {
      const response = await raw(host.port, {
        path: requestPath,
        headers: { Host: `127.0.0.1:${host.port}` },
      });
      expect(response.status).toBe(404);
      expect(response.body).not.toContain("root:");
    },
  );
});

describe("browser host: events", () => {
  async function ticket(): Promise<string> {
    const response = await api("events/ticket", {});
    return (JSON.parse(response.body) as { data: { ticket: string } }).data.ticket;
  }

  it("delivers an event over SSE to a stream opened with a one-time ticket", async () => {
    const controller = new AbortController();
    const response = await fetch(`${host.origin}/api/events?ticket=${await ticket()}`, {
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    await reader.read().then(({ value }) => {
      text += decoder.decode(value);
    });
    events.emit("jobs:event", { type: "job", jobId: "job-9", state: "completed" });
    while (!text.includes("job-9")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    controller.abort();
    expect(text).toContain('event: jobs:event\ndata: {"type":"job","jobId":"job-9","state":"completed"}\n\n');
  });

  it("refuses a stream without a ticket, or with a used one", async () => {
    expect((await fetch(`${host.origin}/api/events`)).status).toBe(401);
    const once = await ticket();
    const first = await fetch(`${host.origin}/api/events?ticket=${once}`);
    expect(first.status).toBe(200);
    await first.body?.cancel();
    expect((await fetch(`${host.origin}/api/events?ticket=${once}`)).status).toBe(401);
  });

  it("needs the token to buy a ticket", async () => {
    expect((await api("events/ticket", {}, { [TOKEN_HEADER]: "nope" })).status).toBe(401);
  });

  it("expires tickets", () => {
    let now = 0;
    const book = new TicketBook(1000, () => now);
    const a = book.issue();
    now = 2000;
    expect(book.redeem(a)).toBe(false);
  });
});
