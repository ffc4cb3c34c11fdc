import http from "node:http";
import type { AddressInfo } from "node:net";
import { MessageChannel } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchOnReaderThread, ListPageReadOnReader } from "./list-page-fetch.js";
import { ListPageReader } from "./list-page-reader-client.js";
import type { ReaderHeap } from "./protocol.js";

// What the list-page reader holds once a scan's pages have passed through it (decision 312), a real
// thread started from source: a young generation of two semi-spaces of 2 MB, and no pile of the pages'
// bytes waiting for a collection.

const MB = 2 ** 20;
const PAGES = 24;
const VIEWS_PER_PAGE = 3_000;

/** A list page of about 1 MB, sent in slices of 64 KiB as a socket hands a large answer over. */
function listPage(offset: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      status: "success",
      data: {
        data: Array.from({ length: VIEWS_PER_PAGE }, (_, at) => ({
          id: `00000000-0000-4000-8000-${String(offset + at).padStart(12, "0")}`,
          status: "running",
          shape: "s-2vcpu-4gb",
          created_at: "2026-12-01T00:00:00.000Z",
          labels: { owner: "leasekeeper", team: "platform", purpose: "a view long enough to fill a page" },
        })),
        pagination: { total: PAGES * VIEWS_PER_PAGE, limit: VIEWS_PER_PAGE, offset },
      },
    }),
  );
}

let server: http.Server;
let url: string;
const reader = new ListPageReader();

beforeAll(async () => {
  server = http.createServer(async (request, response) => {
    const offset = Number(new URL(request.url ?? "/", "http://reader.test").searchParams.get("offset"));
    const page = listPage(offset);
    response.writeHead(200, { "content-type": "application/json" });
    for (let at = 0; at < page.length; at += 64 * 1024) {
      response.write(page.subarray(at, at + 64 * 1024));
      await new Promise((resolve) => setImmediate(resolve));
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await reader.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the list-page reader's memory over a scan's pages", () => {
  it("keeps its young generation to 4 MB and lets each page's bytes go", { timeout: 60_000 }, async () => {
    const scanId = 1;
    const channel = new MessageChannel();
    let viewsSent = 0;
    channel.port1.on("message", (message: { views: unknown[] | null }) => {
      viewsSent += message.views?.length ?? 0;
    });
    await reader.request({ type: "scan", scanId, port: channel.port2, known: [] });
    const scanFetch = fetchOnReaderThread((request) => reader.request(request), { scanId, listing: 0 });

    for (let page = 0; page < PAGES; page++) {
      const response = await scanFetch(`${url}/v1/sandboxes?offset=${page * VIEWS_PER_PAGE}`);
      expect(response).toBeInstanceOf(ListPageReadOnReader);
      expect((response as ListPageReadOnReader).page).toEqual({
        count: VIEWS_PER_PAGE,
        total: PAGES * VIEWS_PER_PAGE,
      });
      await reader.request({ type: "take-page", fetchId: (response as ListPageReadOnReader).fetchId });
    }
    const heap = (await reader.request({ type: "heap" })) as ReaderHeap;
    await reader.request({ type: "scan-done", scanId });
    channel.port1.close();

    expect(viewsSent).toBe(PAGES * VIEWS_PER_PAGE);
    expect(heap.youngBytes / MB, "the reader's semi-spaces, MB").toBeLessThanOrEqual(4);
    // The pages read came to about 24 MB; what a scavenge has not yet freed is a few pages' worth at most.
    expect(heap.arrayBufferBytes / MB, "the reader's array buffers, MB").toBeLessThan(6);
  });
});
