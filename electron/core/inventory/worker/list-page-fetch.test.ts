import http from "node:http";
import type { AddressInfo } from "node:net";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_KEY } from "../../../../test/fixtures/leasekeeper.js";
import { CreateosClient } from "../../createos/client.js";
import { CreateosError } from "../../createos/errors.js";
import { type FetchedPage, fetchOnReaderThread, ListPageReadOnReader } from "./list-page-fetch.js";
import { ListPageReader } from "./list-page-reader-client.js";
import type { WorkerRequest } from "./protocol.js";

/** A list page's request made on the list-page reader's thread, against a server of the test's own. */

let server: http.Server;
let url: string;
const reader = new ListPageReader();
const readerFetch = fetchOnReaderThread((request) => reader.request(request));
/** Requests whose connection closed before the server answered them whole, by path. */
const cutOff: string[] = [];
/** Requests the server has begun to answer, by path. */
const started: string[] = [];
/** Requests that followed a redirect to /elsewhere. */
let followed = 0;
/** A list page as CreateOS sends one: two of the listing's three sandboxes. */
const LIST_PAGE = {
  status: "success",
  data: { data: [{ id: "sb-1" }, { id: "sb-2" }], pagination: { total: 3, limit: 500, offset: 0 } },
};
/** The listing's last page: its third sandbox. */
const CLOSING_PAGE = {
  status: "success",
  data: { data: [{ id: "sb-3" }], pagination: { total: 3, limit: 500, offset: 500 } },
};
const BUSY = { status: "error", message: "try again" };

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const path = request.url ?? "";
    started.push(path);
    if (path.startsWith("/list")) {
      response.writeHead(200, { "content-type": "application/json", "x-request-id": "list-1" });
      response.end(JSON.stringify(LIST_PAGE));
    } else if (path.startsWith("/closing")) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(CLOSING_PAGE));
    } else if (path.startsWith("/busy")) {
      response.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
      response.end(JSON.stringify(BUSY));
    } else if (path.startsWith("/page")) {
      response.writeHead(200, { "content-type": "application/json", "x-page": "2" });
      response.end(JSON.stringify({ data: ["é", "sb-1"], key: request.headers.authorization }));
    } else if (path.startsWith("/v1/sandboxes")) {
      // An origin behind a proxy that redirects: the key must never follow the redirect.
      response.writeHead(302, { location: "/elsewhere" });
      response.end();
    } else if (path.startsWith("/elsewhere")) {
      followed += 1;
      response.end("{}");
    } else if (path.startsWith("/stalls")) {
      // The headers, then a body that never ends: only an abort frees the connection.
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"data":[');
      response.on("close", () => {
        if (!response.writableFinished) cutOff.push(path);
      });
    } else {
      response.writeHead(204);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await reader.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("a list page's request made on the list-page reader", () => {
  it("answers with the status, headers and bytes the server sent, the request's headers sent with it", async () => {
    const response = await readerFetch(`${url}/page?offset=500`, {
      headers: { authorization: "Bearer page-key" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-page")).toBe("2");
    expect(await response.json()).toEqual({ data: ["é", "sb-1"], key: "Bearer page-key" });
  });

  it("answers a status without a body with none", async () => {
    const response = await readerFetch(`${url}/empty`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("lets main's transport refuse a redirect as it refuses one of its own fetch, not followed", async () => {
    const client = new CreateosClient({ apiUrl: url, apiKey: SECRET_KEY, fetch: readerFetch });
    const error = await client
      .forEachSandboxPageResponse(async () => null)
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(CreateosError);
    expect(error).toMatchObject({ code: "refused-redirect", requests: 1 });
    expect(followed).toBe(0);
  });

  it("cuts off the reader's request once main's transport gives up on it", async () => {
    const aborted = new AbortController();
    const answer = readerFetch(`${url}/stalls`, { signal: aborted.signal }).catch(
      (failure: unknown) => failure,
    );
    // The server holds the request open until the reader lets go of it.
    await expect.poll(() => started.includes("/stalls"), { timeout: 5_000 }).toBe(true);
    aborted.abort(new Error("given up"));
    expect(await answer).toEqual(new Error("given up"));
    await expect.poll(() => cutOff, { timeout: 5_000 }).toEqual(["/stalls"]);
  });
});

describe("a scan's list page read on the list-page reader where it arrived", () => {
  const scanId = 7;
  let worker: MessagePort;
  const sent: WorkerRequest[] = [];
  const scanFetch = fetchOnReaderThread((request) => reader.request(request), { scanId, listing: 2 });

  beforeAll(async () => {
    const channel = new MessageChannel();
    worker = channel.port1;
    worker.on("message", (message: WorkerRequest) => sent.push(message));
    await reader.request({ type: "scan", scanId, port: channel.port2, known: [] });
  });

  afterAll(async () => {
    await reader.request({ type: "scan-done", scanId });
    worker.close();
  });

  it("sends main the status, the headers and the paging's counts, and the page's views to the worker, not the bytes to main", async () => {
    const response = await scanFetch(`${url}/list?offset=0`);
    expect(response).toBeInstanceOf(ListPageReadOnReader);
    expect((response as ListPageReadOnReader).page).toEqual({ count: 2, total: 3 });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("list-1");
    expect(response.body, "main was sent the page's bytes").toBeNull();
    await take(response);
    await expect.poll(() => sent.length, { timeout: 5_000 }).toBe(1);
    expect(sent[0]).toMatchObject({
      type: "listing-page",
      scanId,
      listing: 2,
      page: { count: 2, total: 3 },
      views: LIST_PAGE.data.data,
    });
  });

  it("answers a refusal whole, for the transport and the SDK to read, and sends the worker nothing", async () => {
    sent.length = 0;
    const response = await scanFetch(`${url}/busy`);
    expect(response).not.toBeInstanceOf(ListPageReadOnReader);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual(BUSY);
    await expectOnlyTheNextPageSent();
  });

  it("reads a successful answer that is no list page as none, and sends the worker nothing", async () => {
    sent.length = 0;
    const response = await scanFetch(`${url}/page`);
    expect(response).toBeInstanceOf(ListPageReadOnReader);
    expect((response as ListPageReadOnReader).page).toBeNull();
    await expectOnlyTheNextPageSent();
  });

  it("sends the worker no page whose request main's transport gave up on before its answer came", async () => {
    sent.length = 0;
    // What the reader is asked when main's timeout fires after the page arrived on the reader but before
    // its answer reached main: the transport asks for the same page again, and only that one may count.
    const fetchId = 900_001;
    const given = (await reader.request({
      type: "fetch",
      fetchId,
      url: `${url}/list?offset=0`,
      method: "GET",
      headers: [],
      redirect: "follow",
      readAs: { scanId, listing: 2 },
    })) as FetchedPage;
    expect(given).toMatchObject({ ok: true, status: 200, read: { count: 2, total: 3 } });
    await reader.request({ type: "abort-fetch", fetchId });
    await reader.request({ type: "take-page", fetchId });
    await expectOnlyTheNextPageSent();
  });

  /**
   * Pages reach the worker on a channel of their own, in the order they were read: once the listing's
   * last page, fetched next, is there, anything sent before it is too.
   */
  async function expectOnlyTheNextPageSent(): Promise<void> {
    await take(await scanFetch(`${url}/closing?offset=500`));
    // Named by its counts: once its views were sent in this scan, the page goes as its digest alone.
    const closing = (message: WorkerRequest) =>
      message.type === "listing-page" && message.page.count === CLOSING_PAGE.data.data.length;
    await expect.poll(() => sent.some(closing), { timeout: 5_000 }).toBe(true);
    expect(
      sent.filter((message) => !closing(message)),
      "the worker was sent another page before it",
    ).toEqual([]);
  }
});

describe("a scan's list pages of the same bytes, as one account listed under two addresses gives them", () => {
  /** A scan of its own on the reader, and what its worker's end of the channel is sent. */
  async function scanOnReader(scanId: number) {
    const channel = new MessageChannel();
    const sent: Extract<WorkerRequest, { type: "listing-page" }>[] = [];
    channel.port1.on("message", (message: WorkerRequest) => {
      if (message.type === "listing-page") sent.push(message);
    });
    await reader.request({ type: "scan", scanId, port: channel.port2, known: [] });
    return {
      sent,
      fetchFor: (listing: number) =>
        fetchOnReaderThread((request) => reader.request(request), { scanId, listing }),
      done: async () => {
        await reader.request({ type: "scan-done", scanId });
        channel.port1.close();
      },
    };
  }

  it("sends the worker the page's views once, the later pages named by their digest alone, in the order taken", async () => {
    const scan = await scanOnReader(11);
    try {
      // Both answers arrive before main takes either, as both addresses' first pages do.
      const atNew = await scan.fetchFor(0)(`${url}/list?offset=0`);
      const atLegacy = await scan.fetchFor(1)(`${url}/list?offset=0`);
      for (const response of [atNew, atLegacy])
        expect((response as ListPageReadOnReader).page).toEqual({ count: 2, total: 3 });
      await take(atLegacy);
      await take(atNew);
      await take(await scan.fetchFor(0)(`${url}/list?offset=0`));
      await expect.poll(() => scan.sent.length, { timeout: 5_000 }).toBe(3);
      expect(scan.sent.map(({ listing, views }) => [listing, views])).toEqual([
        [1, LIST_PAGE.data.data],
        [0, null],
        [0, null],
      ]);
      expect(new Set(scan.sent.map(({ page }) => JSON.stringify(page))).size).toBe(1);
    } finally {
      await scan.done();
    }
  });

  it("sends the views with a page whose twin, read first, was given up on", async () => {
    const scan = await scanOnReader(12);
    try {
      const fetchId = 900_002;
      await reader.request({
        type: "fetch",
        fetchId,
        url: `${url}/list?offset=0`,
        method: "GET",
        headers: [],
        redirect: "follow",
        readAs: { scanId: 12, listing: 0 },
      });
      const twin = await scan.fetchFor(1)(`${url}/list?offset=0`);
      await reader.request({ type: "abort-fetch", fetchId });
      await take(twin);
      await expect.poll(() => scan.sent.length, { timeout: 5_000 }).toBe(1);
      expect(scan.sent[0]).toMatchObject({ listing: 1, views: LIST_PAGE.data.data });
    } finally {
      await scan.done();
    }
  });
});

/** What main does with a list page its transport kept: the reader sends it on to the worker. */
async function take(response: Response): Promise<void> {
  await reader.request({ type: "take-page", fetchId: (response as ListPageReadOnReader).fetchId });
}
