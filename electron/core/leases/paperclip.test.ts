import { afterEach, describe, expect, it } from "vitest";
import { COMPANY, environment, leaseRow, SECRET_KEY } from "../../../test/fixtures/leasekeeper.js";
import { PaperclipSource } from "./paperclip.js";
import { SourceError } from "./source.js";
import {
  type FakePaperclip,
  type FakePaperclipOptions,
  startFakePaperclip,
} from "./testing/fake-paperclip.js";

const API = "https://api.example.test";
const TOKEN = "pcp_board_TOKEN_1234";
const OTHER_COMPANY = "55555555-5555-4555-8555-555555555555";

const createos = environment();
const sshEnvironment = environment({
  id: "66666666-6666-4666-8666-666666666666",
  name: "ssh box",
  driver: "ssh",
  config: {},
});
const otherSandbox = environment({
  id: "77777777-7777-4777-8777-777777777777",
  name: "e2b",
  config: { provider: "e2b" },
});

const owned = leaseRow(API, "sb-owned");
const pausedStatus = leaseRow(API, "sb-paused-row", { status: "paused" });
const otherProvider = leaseRow(API, "e2b-123", { provider: "e2b", metadata: { provider: "e2b" } });
const malformed = { ...leaseRow(API, "sb-bad"), companyId: 12345 };

function world() {
  return {
    companies: [
      { id: COMPANY, name: "Acme" },
      { id: OTHER_COMPANY, name: "Globex" },
    ],
    environments: [createos, sshEnvironment, otherSandbox],
    leasesByEnvironment: {
      [createos.id]: [owned, malformed, pausedStatus, otherProvider],
      [otherSandbox.id]: [leaseRow(API, "e2b-999")],
    },
  };
}

describe("PaperclipSource", () => {
  let server: FakePaperclip;
  afterEach(() => server?.stop());

  const start = async (options: FakePaperclipOptions = { token: TOKEN }) => {
    server = await startFakePaperclip(world(), options);
    return server;
  };
  const source = (token: string | null = TOKEN, url = server.url) =>
    new PaperclipSource({ id: "paperclip:test", url, token, timeoutMs: 2000 });

  it("reads companies → environments → leases of CreateOS sandbox environments, with the bearer token", async () => {
    await start();
    const snapshot = await source().load();

    expect(snapshot.environments.map((env) => env.id)).toEqual([createos.id]);
    expect(snapshot.leases.map((row) => row.id)).toEqual([owned.id, pausedStatus.id, otherProvider.id]);
    // An unknown status is shown, not thrown; a row of another provider stays listed under its environment.
    expect(snapshot.leases.find((row) => row.id === pausedStatus.id)?.status).toBe("paused");
    expect(snapshot.leases.find((row) => row.id === otherProvider.id)?.provider).toBe("e2b");
    expect(snapshot.problems).toEqual([
      {
        source: "paperclip:test",
        index: 1,
        message: `environment ${createos.id} leases[1].companyId: Invalid input: expected string, received number.`,
      },
    ]);

    const paths = server.requests.map((request) => request.path);
    expect(paths).toEqual([
      "/api/companies",
      `/api/companies/${COMPANY}/environments`,
      `/api/companies/${OTHER_COMPANY}/environments`,
      `/api/environments/${createos.id}/leases`,
    ]);
    expect(server.requests.every((request) => request.authorized)).toBe(true);
  });

  it("fails on a wrong token with the status only, never the body or the token", async () => {
    await start();
    const error = await source("pcp_wrong")
      .load()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toBe(
      "paperclip:test: Paperclip request failed (HTTP 401) while listing companies.",
    );
    expect((error as Error).message).not.toMatch(/Board access|pcp_/);
  });

  it("fails the source when one environment's lease list fails, naming the environment but not the body", async () => {
    await start({ token: TOKEN, failures: [{ path: "/leases$", status: 500, body: `boom ${SECRET_KEY}` }] });
    const error = (await source()
      .load()
      .catch((caught: unknown) => caught)) as Error;
    expect(error.message).toBe(
      `paperclip:test: Paperclip request failed (HTTP 500) while listing leases of environment ${createos.id}.`,
    );
    expect(error.message).not.toContain(SECRET_KEY);
  });

  it("refuses to follow a redirect, so the token never goes elsewhere", async () => {
    await start({
      token: TOKEN,
      failures: [{ path: "^/api/companies$", status: 302, location: "/login?next=x" }],
    });
    await expect(source().load()).rejects.toThrow(
      "paperclip:test: Paperclip answered with a redirect while listing companies; redirects are refused.",
    );
    expect(server.requests.map((request) => request.path)).toEqual(["/api/companies"]);
  });

  it("says so when Paperclip hides environment configs from a non-admin", async () => {
    await start({ token: TOKEN, redactConfigs: true });
    const snapshot = await source().load();
    expect(snapshot.environments).toEqual([]);
    expect(snapshot.problems.map((problem) => problem.message)).toEqual([
      "environments[0].config: hidden by Paperclip (instance admin access needed); its leases were not read.",
      "environments[2].config: hidden by Paperclip (instance admin access needed); its leases were not read.",
    ]);
  });

  it("re-reads one lease and one environment by id", async () => {
    await start();
    expect((await source().readLease(owned.id))?.providerLeaseId).toBe("sb-owned");
    expect(await source().readLease("88888888-8888-4888-8888-888888888888")).toBeNull();
    await expect(source().readLease(malformed.id)).rejects.toThrow(
      /the lease row is malformed \(companyId: /,
    );
    await expect(source().readLease("../companies")).rejects.toThrow(/not valid/);
    expect((await source().readEnvironment(createos.id))?.name).toBe("CreateOS main");
    expect(await source().readEnvironment("99999999-9999-4999-8999-999999999999")).toBeNull();
    expect(server.requests.at(-1)?.path).toBe("/api/environments/99999999-9999-4999-8999-999999999999");
  });

  it("reports a dead instance as a connection failure", async () => {
    await start();
    const url = server.url;
    await server.stop();
    await expect(source(TOKEN, url).load()).rejects.toThrow(
      "paperclip:test: Paperclip connection failed while listing companies.",
    );
  });
});
