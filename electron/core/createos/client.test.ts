import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { OTHER_KEY, recordingFetch, SECRET_KEY, sandboxes } from "../../../test/fixtures/leasekeeper.js";
import { CreateosClient } from "./client.js";
import { CreateosError } from "./errors.js";
import { readListPage } from "./list-page.js";
import { configureOrigin, originStats } from "./pacer.js";

const FAST = 6000; // requests per minute for tests that are not about pacing: 10 ms apart

function expectCreateosError(error: unknown): CreateosError {
  expect(error).toBeInstanceOf(CreateosError);
  return error as CreateosError;
}

async function failureOf(promise: Promise<unknown>): Promise<CreateosError> {
  try {
    await promise;
  } catch (error) {
    return expectCreateosError(error);
  }
  throw new Error("expected the call to fail");
}

/** Nothing a person might read may carry the key, the query, or anything the provider sent. */
function expectClean(error: CreateosError): void {
  const visible = `${error.message} ${String(error)} ${JSON.stringify(error)} ${error.stack ?? ""}`;
  expect(visible).not.toContain(SECRET_KEY);
  expect(visible).not.toContain("limit=");
  expect(visible).not.toContain("offset=");
  expect(visible).not.toContain("127.0.0.1");
  expect(visible).not.toMatch(/invalid api key|internal error|insufficient/i);
}

describe("CreateosClient against the simulator", () => {
  let sim: Simulator;
  const seeded = sandboxes("sb-big", 1200);

  beforeAll(async () => {
    sim = await startSimulator({
      fleet: {
        accounts: [
          { apiKey: SECRET_KEY, sandboxes: seeded },
          {
            apiKey: OTHER_KEY,
            sandboxes: [
              { id: "sb-run", status: "running", shape: "s-1vcpu-1gb" },
              { id: "sb-paused", status: "paused", shape: "s-1vcpu-1gb" },
              { id: "sb-gone", status: "destroyed", shape: "s-1vcpu-1gb" },
            ],
          },
        ],
      },
      rateLimitPerMinute: 0,
      transitionMs: 50,
    });
    configureOrigin(sim.url, { requestsPerMinute: FAST });
  });
  afterAll(() => sim.stop());
  beforeEach(() => {
    sim.reset();
    sim.setFaults([]);
  });

  const client = (
    apiKey = SECRET_KEY,
    extra: Partial<ConstructorParameters<typeof CreateosClient>[0]> = {},
  ) => new CreateosClient({ apiUrl: sim.url, apiKey, retry: { baseDelayMs: 20 }, ...extra });

  it("lists 1,200 sandboxes in exactly 3 pages of 500, destroyed ones included", async () => {
    const list = await client().listAllSandboxes();
    expect(list.sandboxes.map((sandbox) => sandbox.id).sort()).toEqual(
      seeded.map((sandbox) => sandbox.id).sort(),
    );
    expect(list.sandboxes.filter((sandbox) => sandbox.status === "destroyed")).toHaveLength(120);
    expect(list.requests).toBe(3);
    expect(list.httpStatus).toBe(200);
    expect(sim.stats().byRoute["GET /v1/sandboxes"]).toEqual({ "200": 3 });
    expect(sim.stats().total).toBe(3);
  });

  it("hands a listing over page by page, each page before the next one is asked for", async () => {
    const recorder = recordingFetch();
    const pages: { size: number; requestsSoFar: number }[] = [];
    const listed = new Set<string>();
    const done = await client(SECRET_KEY, { fetch: recorder.fetch }).forEachSandboxPage((views) => {
      pages.push({ size: views.length, requestsSoFar: recorder.starts.length });
      for (const view of views) listed.add((view as { id: string }).id);
    });
    expect(pages).toEqual([
      { size: 500, requestsSoFar: 1 },
      { size: 500, requestsSoFar: 2 },
      { size: 200, requestsSoFar: 3 },
    ]);
    expect([...listed].sort()).toEqual(seeded.map((sandbox) => sandbox.id).sort());
    expect(done).toEqual({ httpStatus: 200, requests: 3 });
  });

  it("reads list pages one per turn of the event loop, however many listings run at once", async () => {
    // Counts the loop's turns: an immediate queued from an immediate runs on the next turn.
    let turn = 0;
    let counting = true;
    const count = () => {
      turn += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const turns: number[] = [];
    await Promise.all(
      [SECRET_KEY, SECRET_KEY, SECRET_KEY].map((key) =>
        client(key).forEachSandboxPage(() => {
          turns.push(turn);
        }),
      ),
    );
    counting = false;
    expect(turns).toHaveLength(9);
    expect(new Set(turns).size).toBe(turns.length);
  });

  it("throws when a page fails part-way, after handing over only the pages before it", async () => {
    const handed: number[] = [];
    const recorder = recordingFetch();
    const failing: typeof fetch = (input, init) => {
      // The third page meets a server that keeps failing, retries included.
      if (new URL(String(input)).searchParams.get("offset") === "1000")
        sim.setFaults([{ path: "^/v1/sandboxes$", status: 500 }]);
      return recorder.fetch(input, init);
    };
    const error = await failureOf(
      client(SECRET_KEY, { fetch: failing }).forEachSandboxPage((views) => handed.push(views.length)),
    );
    expect(error.code).toBe("server-error");
    expect(handed).toEqual([500, 500]);
    // Two pages, then the third tried three times (two retries).
    expect(error.requests).toBe(5);
  });

  it("hands each page over as the response CreateOS sent, paging by what the reader counted", async () => {
    const bodies: number[] = [];
    const listed: string[] = [];
    const done = await client().forEachSandboxPageResponse(async (response) => {
      const body = await response.arrayBuffer();
      bodies.push(body.byteLength);
      const page = readListPage(new TextDecoder().decode(body));
      if (page === null) return null;
      for (const view of page.views) listed.push((view as { id: string }).id);
      return { count: page.views.length, total: page.total };
    });
    expect(bodies).toHaveLength(3);
    expect(bodies.every((bytes) => bytes > 0)).toBe(true);
    expect(listed.sort()).toEqual(seeded.map((sandbox) => sandbox.id).sort());
    expect(done).toEqual({ httpStatus: 200, requests: 3 });
    expect(sim.stats().byRoute["GET /v1/sandboxes"]).toEqual({ "200": 3 });
  });

  it("fails a listing whose page the reader cannot read as invalid-response, and a refused key as unauthorized", async () => {
    const unreadable = await failureOf(client().forEachSandboxPageResponse(async () => null));
    expect(unreadable.code).toBe("invalid-response");
    expect(unreadable.requests).toBe(1);
    expectClean(unreadable);
    const refused = await failureOf(
      client("lk_test_WRONG_0000").forEachSandboxPageResponse(async () => ({ count: 0, total: 0 })),
    );
    expect(refused.code).toBe("unauthorized");
    expect(refused.httpStatus).toBe(401);
  });

  it("lists an account's sandboxes only, with the fields a verdict reads", async () => {
    const list = await client(OTHER_KEY).listAllSandboxes();
    expect(
      list.sandboxes
        .map(({ id, status, shape }) => ({ id, status, shape }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    ).toEqual([
      { id: "sb-gone", status: "destroyed", shape: "s-1vcpu-1gb" },
      { id: "sb-paused", status: "paused", shape: "s-1vcpu-1gb" },
      { id: "sb-run", status: "running", shape: "s-1vcpu-1gb" },
    ]);
    expect(list.requests).toBe(1);
  });

  it("gets, pauses and deletes with the raw HTTP status of each call", async () => {
    const other = client(OTHER_KEY);
    expect((await other.getSandbox("sb-run")).sandbox.status).toBe("running");

    const accepted = await other.pauseSandbox("sb-run");
    expect(accepted).toMatchObject({ outcome: "accepted", httpStatus: 202, requests: 1 });
    const already = await other.pauseSandbox("sb-paused");
    expect(already).toMatchObject({ outcome: "already-paused", httpStatus: 200 });
    const conflict = await failureOf(other.pauseSandbox("sb-gone"));
    expect(conflict).toMatchObject({ code: "conflict", httpStatus: 409, operation: "sandbox pause" });
    expect(conflict.message).toBe("CreateOS request failed (HTTP 409) during sandbox pause.");

    const deleted = await other.deleteSandbox("sb-paused");
    expect(deleted.httpStatus).toBe(200);
    expect(["destroying", "destroyed"]).toContain(deleted.outcome);
    const again = await other.deleteSandbox("sb-gone");
    expect(again).toMatchObject({ outcome: "destroyed", httpStatus: 200 });
  });

  it("reports a 404 on delete as already gone, and a 404 on get as not-found (another account's sandbox)", async () => {
    const deleted = await client(OTHER_KEY).deleteSandbox("sb-big-00001");
    expect(deleted).toMatchObject({ outcome: "already-gone", httpStatus: 404, requests: 1 });
    const lookup = await failureOf(client(OTHER_KEY).getSandbox("sb-big-00001"));
    expect(lookup).toMatchObject({ code: "not-found", httpStatus: 404 });
  });

  it("answers whoami", async () => {
    const me = await client(OTHER_KEY).whoami();
    expect(me.httpStatus).toBe(200);
    expect(typeof me.userId).toBe("string");
  });

  it("refuses a sandbox id outside the plugin's pattern before any request", async () => {
    for (const id of ["../x", "sb/../../v1/whoami", "", "a b", "x".repeat(201)]) {
      const error = await failureOf(client().getSandbox(id));
      expect(error).toMatchObject({ code: "invalid-id", requests: 0, httpStatus: null });
      await expect(client().deleteSandbox(id)).rejects.toMatchObject({ code: "invalid-id" });
      await expect(client().pauseSandbox(id)).rejects.toMatchObject({ code: "invalid-id" });
    }
    expect(sim.stats().total).toBe(0);
  });

  it("turns a 401 into a typed error that names neither key, query nor body", async () => {
    const error = await failureOf(client("lk_test_WRONG_0000").listAllSandboxes());
    expect(error).toMatchObject({
      code: "unauthorized",
      httpStatus: 401,
      operation: "sandbox listing",
      requests: 1,
    });
    expect(error.message).toBe("CreateOS request failed (HTTP 401) during sandbox listing.");
    expectClean(error);
  });

  it("retries a GET on 503 but never re-sends a POST", async () => {
    sim.setFaults([{ path: "^/v1/sandboxes", status: 503 }]);
    const listing = await failureOf(client().listAllSandboxes());
    expect(listing).toMatchObject({ code: "server-error", httpStatus: 503, requests: 3 });
    expect(listing.message).toBe("CreateOS request failed (HTTP 503) during sandbox listing.");
    expectClean(listing);

    sim.reset();
    const pause = await failureOf(client(OTHER_KEY).pauseSandbox("sb-run"));
    expect(pause).toMatchObject({ code: "server-error", httpStatus: 503, requests: 1 });
    expect(sim.stats().byRoute["POST /v1/sandboxes/:id/pause"]).toEqual({ "503": 1 });
  });

  it("recovers from a transient 5xx on an idempotent call", async () => {
    sim.setFaults([{ method: "GET", path: "^/v1/sandboxes/sb-run$", status: 502, count: 1 }]);
    const lookup = await client(OTHER_KEY).getSandbox("sb-run");
    expect(lookup).toMatchObject({ httpStatus: 200, requests: 2 });
  });

  it("honours Retry-After on 429: waits, retries, and succeeds with exactly 3 requests", async () => {
    sim.setFaults([{ path: "^/v1/sandboxes$", status: 429, count: 2, retryAfterSeconds: 1 }]);
    const started = performance.now();
    const list = await client(OTHER_KEY).listAllSandboxes();
    const elapsed = performance.now() - started;
    expect(list.sandboxes).toHaveLength(3);
    expect(list.requests).toBe(3);
    expect(sim.stats().byRoute["GET /v1/sandboxes"]).toEqual({ "429": 2, "200": 1 });
    // Two Retry-After: 1 pauses in a row.
    expect(elapsed).toBeGreaterThanOrEqual(1900);
  });

  it("pauses the whole origin on 429, not just the request that met it", async () => {
    sim.setFaults([{ path: "^/v1/sandboxes/sb-run$", status: 429, count: 1, retryAfterSeconds: 1 }]);
    const recorder = recordingFetch();
    // The origin's pacer is the process's: earlier tests' 429s are already counted in it.
    const before = originStats(sim.url).rateLimited;
    const first = client(OTHER_KEY, { fetch: recorder.fetch }).getSandbox("sb-run");
    // Let the first request meet its 429 before the second one queues (seen by the client, not guessed).
    await expect
      .poll(() => originStats(sim.url).rateLimited, { timeout: 10_000, interval: 5 })
      .toBeGreaterThan(before);
    const second = client(OTHER_KEY, { fetch: recorder.fetch }).getSandbox("sb-paused");
    await Promise.all([first, second]);
    const paths = recorder.starts.map((start) => new URL(start.url).pathname);
    // Once the pause ends, the retry and the waiting request may leave in either order; what matters is
    // that the waiting request did not leave before the origin's pause was over.
    expect([...paths].sort()).toEqual([
      "/v1/sandboxes/sb-paused",
      "/v1/sandboxes/sb-run",
      "/v1/sandboxes/sb-run",
    ]);
    expect(paths[0]).toBe("/v1/sandboxes/sb-run");
    const firstStart = recorder.starts[0]!.at;
    const secondStart = recorder.starts[paths.indexOf("/v1/sandboxes/sb-paused")]!.at;
    expect(secondStart - firstStart).toBeGreaterThanOrEqual(950);
    expect(originStats(sim.url).rateLimited).toBe(before + 1);
  });

  it("gives up on a Retry-After longer than it is willing to wait", async () => {
    sim.setFaults([{ path: "^/v1/sandboxes$", status: 429, count: 1, retryAfterSeconds: 3600 }]);
    const error = await failureOf(client(OTHER_KEY, { retry: { maxRetryAfterMs: 500 } }).listAllSandboxes());
    expect(error).toMatchObject({ code: "rate-limited", httpStatus: 429, requests: 1 });
    configureOrigin(sim.url, { requestsPerMinute: FAST });
  });

  it("times out a request that never answers, as a typed timeout", async () => {
    sim.setFaults([{ path: "^/v1/sandboxes/sb-run$", hang: true }]);
    const error = await failureOf(client(OTHER_KEY, { timeoutMs: 300 }).getSandbox("sb-run"));
    expect(error).toMatchObject({
      code: "timeout",
      httpStatus: null,
      requests: 1,
      operation: "sandbox lookup",
    });
    expect(error.message).toBe("CreateOS request timed out during sandbox lookup.");
    expectClean(error);
  });

  it("reports a refused connection as a network failure with a fixed message", async () => {
    const error = await failureOf(
      new CreateosClient({
        apiUrl: "http://127.0.0.1:9",
        apiKey: SECRET_KEY,
        retry: { maxRetries: 0 },
      }).listAllSandboxes(),
    );
    expect(error).toMatchObject({ code: "network", httpStatus: null });
    expect(error.message).toBe("CreateOS connection failed.");
    expectClean(error);
  });

  it("counts requests per origin for the status bar", async () => {
    const before = originStats(sim.url);
    await client(OTHER_KEY).listAllSandboxes();
    await client(OTHER_KEY).getSandbox("sb-run");
    const after = originStats(sim.url);
    expect(after.totalRequests - before.totalRequests).toBe(2);
    expect(after.requestsLastMinute).toBeGreaterThanOrEqual(2);
  });

  it("refuses an API URL that breaks the plugin's rule and a key with a line break", () => {
    expect(() => new CreateosClient({ apiUrl: "http://remote.test", apiKey: SECRET_KEY })).toThrow(
      /HTTPS origin/,
    );
    expect(() => new CreateosClient({ apiUrl: "https://host.test/?key=x", apiKey: SECRET_KEY })).toThrow();
    expect(() => new CreateosClient({ apiUrl: sim.url, apiKey: `${SECRET_KEY}\r\nX-Evil: 1` })).toThrow(
      /line break/,
    );
    expect(new CreateosClient({ apiUrl: `${sim.url}/v1/`, apiKey: SECRET_KEY }).origin).toBe(sim.url);
  });
});

describe("pacing", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      fleet: { accounts: [{ apiKey: SECRET_KEY, sandboxes: sandboxes("sb-p", 3) }, { apiKey: OTHER_KEY }] },
      rateLimitPerMinute: 0,
    });
  });
  afterAll(() => sim.stop());

  it("spaces request starts at one origin by 60 s / budget, across clients and credentials", async () => {
    // The default budget, 300/min: one start every 200 ms.
    const recorder = recordingFetch();
    const a = new CreateosClient({ apiUrl: sim.url, apiKey: SECRET_KEY, fetch: recorder.fetch });
    const b = new CreateosClient({ apiUrl: sim.url, apiKey: OTHER_KEY, fetch: recorder.fetch });
    await Promise.all([
      a.getSandbox("sb-p-00000"),
      b.listAllSandboxes(),
      a.getSandbox("sb-p-00001"),
      b.whoami(),
      a.listAllSandboxes(),
      a.getSandbox("sb-p-00002"),
    ]);
    expect(recorder.starts).toHaveLength(6);
    const gaps = recorder.starts.slice(1).map((start, index) => start.at - recorder.starts[index]!.at);
    // A late timer is credited against the next slot, so single gaps may shrink by the lateness, but
    // never below half an interval, and the run as a whole keeps the budget.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(100);
    expect(recorder.starts.at(-1)!.at - recorder.starts[0]!.at).toBeGreaterThanOrEqual(5 * 200 - 100);
    expect(sim.stats().total).toBe(6);
  });

  it("applies a configured budget to queued and later requests", async () => {
    configureOrigin(sim.url, { requestsPerMinute: 1200 }); // 50 ms apart
    const recorder = recordingFetch();
    const a = new CreateosClient({ apiUrl: sim.url, apiKey: SECRET_KEY, fetch: recorder.fetch });
    await Promise.all(Array.from({ length: 5 }, () => a.getSandbox("sb-p-00000")));
    const gaps = recorder.starts.slice(1).map((start, index) => start.at - recorder.starts[index]!.at);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(25);
      expect(gap).toBeLessThan(190);
    }
    expect(recorder.starts.at(-1)!.at - recorder.starts[0]!.at).toBeGreaterThanOrEqual(4 * 50 - 25);
  });

  it("lets an aborted queued request go without holding a slot", async () => {
    configureOrigin(sim.url, { requestsPerMinute: 300 });
    const a = new CreateosClient({ apiUrl: sim.url, apiKey: SECRET_KEY });
    const controller = new AbortController();
    const first = a.getSandbox("sb-p-00000");
    const abandoned = a.getSandbox("sb-p-00001", { signal: controller.signal });
    controller.abort(new Error("operator cancelled"));
    await expect(abandoned).rejects.toThrow("operator cancelled");
    await first;
    expect(originStats(sim.url).queued).toBe(0);
  });
});

describe("redirects", () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    // A CreateOS origin behind a proxy that redirects: the key must never follow the redirect.
    server = http.createServer((request, response) => {
      if (request.url?.startsWith("/elsewhere")) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ status: "success", data: { user_id: "thief" } }));
        return;
      }
      response.writeHead(302, { location: `/elsewhere?from=${encodeURIComponent(request.url ?? "")}` });
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("refuses to follow a redirect", async () => {
    let followed = 0;
    server.on("request", (request: http.IncomingMessage) => {
      if (request.url?.startsWith("/elsewhere")) followed += 1;
    });
    const error = await failureOf(new CreateosClient({ apiUrl: url, apiKey: SECRET_KEY }).whoami());
    expect(error).toMatchObject({ code: "refused-redirect", requests: 1 });
    expect(error.message).toBe(
      "CreateOS answered with a redirect during identity check; redirects are refused.",
    );
    expect(followed).toBe(0);
    expectClean(error);
  });
});
