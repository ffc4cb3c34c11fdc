import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_KEY } from "../../../../test/fixtures/leasekeeper.js";
import { CreateosClient } from "../../createos/client.js";
import { CreateosError } from "../../createos/errors.js";
import { fetchOnReaderThread } from "./list-page-fetch.js";
import { ListPageReader } from "./list-page-reader-client.js";

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

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const path = request.url ?? "";
    started.push(path);
    if (path.startsWith("/page")) {
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
    const error = await client.forEachSandboxPageBody(async () => null).catch((failure: unknown) => failure);
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
