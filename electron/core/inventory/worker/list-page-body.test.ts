import { hash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PageBody, pageBodyOf, readPageBody } from "./list-page-body.js";
import { fetchPage, type PageFetchRequest } from "./list-page-fetch.js";

// A list page read on the list-page reader where it arrives (decision 312): its chunks are hashed and
// decoded as they come, so by the time the page is parsed none of its bytes are held, and the digest
// and text are the ones the whole bytes give.

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** A list page of about 7 MB, sent in slices of 64 KiB as a socket hands a large answer over. */
const VIEWS = 32_000;
const SLICE = 64 * 1024;
const page = Buffer.from(
  JSON.stringify({
    status: "success",
    data: {
      data: Array.from({ length: VIEWS }, (_, at) => ({
        id: `00000000-0000-4000-8000-${String(at).padStart(12, "0")}`,
        status: "running",
        name: `sandbox ${at} — ünïcode`,
        created_at: "2026-12-01T00:00:00.000Z",
        labels: { owner: "leasekeeper", team: "platform", purpose: "a view long enough to fill a page" },
      })),
      pagination: { total: VIEWS, limit: VIEWS, offset: 0 },
    },
  }),
);

let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer(async (_, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    for (let at = 0; at < page.length; at += SLICE) {
      response.write(page.subarray(at, at + SLICE));
      await new Promise((resolve) => setImmediate(resolve));
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** What the process holds outside V8's heap for array buffers, once every one no one holds is freed. */
function arrayBuffersHeld(): number {
  // The second collection finishes freeing what the first found unreachable.
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().arrayBuffers;
}

describe("a list page's body read where it arrives", () => {
  it("holds none of the page's bytes by the time the page is parsed", { timeout: 60_000 }, async () => {
    const request: PageFetchRequest = {
      type: "fetch",
      fetchId: 1,
      url: `${url}/v1/sandboxes`,
      method: "GET",
      headers: [],
      redirect: "follow",
      readAs: { scanId: 1, listing: 0 },
    };
    const before = arrayBuffersHeld();
    let heldAtParse = Number.NaN;
    let received: PageBody | null = null;
    const { page: answer } = await fetchPage(request, new AbortController().signal, (_, body) => {
      heldAtParse = arrayBuffersHeld() - before;
      received = body;
      return { count: VIEWS, total: VIEWS };
    });

    expect(answer).toMatchObject({ ok: true, status: 200, read: { count: VIEWS, total: VIEWS } });
    expect(
      heldAtParse,
      `the reader held ${(heldAtParse / 2 ** 20).toFixed(1)} MB of array buffers for a page of ${(page.length / 2 ** 20).toFixed(1)} MB as it parsed it`,
    ).toBeLessThan(page.length / 8);
    expect(received).toEqual(pageBodyOf(new Uint8Array(page).buffer));
  });
});

describe("a page's digest and text", () => {
  it("are the whole bytes' however they are cut, a character split between two chunks included", async () => {
    const bytes = new TextEncoder().encode('\uFEFF{"status":"success","data":[{"name":"é € 𝄞"}]}');
    const splitAt = [3, 25, 26, 27, 30, 31, 33, 34, 35];
    const chunks = [0, ...splitAt].map((from, at) => bytes.slice(from, splitAt[at] ?? bytes.length));
    const arriving = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });

    const whole = pageBodyOf(bytes.slice().buffer);
    expect(whole).toEqual({
      digest: hash("sha1", bytes, "base64"),
      text: '{"status":"success","data":[{"name":"é € 𝄞"}]}',
    });
    expect(await readPageBody(arriving)).toEqual(whole);
    expect(await readPageBody(null)).toEqual(pageBodyOf(new ArrayBuffer(0)));
  });
});
