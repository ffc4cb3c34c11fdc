import { afterEach, describe, expect, it } from "vitest";
import type { PaperclipAuth } from "../../../simulator/paperclip/auth.js";
import { type PaperclipStandIn, startPaperclip } from "../../../simulator/paperclip/index.js";
import type { EnvironmentShape, PaperclipWorld } from "../../../simulator/paperclip/world.js";
import { COMPANY, environment, leaseRow } from "../../../test/fixtures/leasekeeper.js";
import { PaperclipSource } from "./paperclip.js";
import { readToEnd } from "./testing/read-all.js";

const API = "https://api.example.test";
const OTHER_API = "https://eu.sb.example.test/v1";
const ADMIN_TOKEN = "pcp_board_ADMIN_1234";
const MEMBER_TOKEN = "pcp_board_MEMBER_5678";
const GLOBEX = "55555555-5555-4555-8555-555555555555";

const main = environment();
const second = environment({
  id: "77777777-7777-4777-8777-777777777777",
  companyId: GLOBEX,
  name: "CreateOS EU",
  config: { provider: "createos", apiUrl: OTHER_API, shape: "s-1vcpu-1gb", reuseLease: false },
});
const ssh = environment({
  id: "88888888-8888-4888-8888-888888888888",
  name: "ssh box",
  driver: "ssh",
  config: { host: "bastion" },
});

const acmeRow = leaseRow(API, "sb-acme");
const globexRow = leaseRow(API, "sb-globex", { companyId: GLOBEX, status: "active" });
const malformed = { ...leaseRow(API, "sb-bad"), companyId: 12345 };
const euRow = leaseRow(OTHER_API, "sb-eu", { companyId: GLOBEX, environmentId: second.id });

function world(environmentShape: EnvironmentShape): PaperclipWorld {
  return {
    environmentShape,
    companies: [
      { id: COMPANY, name: "Acme", status: "active" },
      { id: GLOBEX, name: "Globex", status: "active" },
    ],
    environments: [main, second, ssh],
    leases: [acmeRow, globexRow, malformed, euRow],
  };
}

const boardKeys: PaperclipAuth = {
  mode: "authenticated",
  boardKeys: [
    { token: ADMIN_TOKEN, instanceAdmin: true, companyIds: [] },
    { token: MEMBER_TOKEN, instanceAdmin: false, companyIds: [COMPANY, GLOBEX] },
  ],
};

describe("PaperclipSource's read hands over what load gathers", () => {
  let paperclip: PaperclipStandIn;
  afterEach(() => paperclip?.stop());

  const cases: [string, EnvironmentShape, string, (stand: PaperclipStandIn) => void][] = [
    ["instance-scoped, a malformed row among good ones", "instance-scoped", ADMIN_TOKEN, () => undefined],
    ["company-scoped", "company-scoped", ADMIN_TOKEN, () => undefined],
    [
      "a lease list Paperclip fails (a gap) and a malformed environment",
      "instance-scoped",
      ADMIN_TOKEN,
      (stand) => {
        stand.setFaults([{ path: `^/api/environments/${second.id}/leases$`, status: 500 }]);
        stand.malformEnvironment(ssh.id);
      },
    ],
    ["configs hidden from a member's key", "instance-scoped", MEMBER_TOKEN, () => undefined],
  ];

  it.each(cases)("%s", async (_, shape, token, prepare) => {
    paperclip = await startPaperclip({ world: world(shape), auth: boardKeys, strictEnums: false });
    prepare(paperclip);
    const source = new PaperclipSource({ id: "paperclip:read", url: paperclip.url, token, timeoutMs: 2000 });
    const snapshot = await source.load();
    const { read, rows, end } = await readToEnd(await source.read());
    expect(read.scope).toBe("whole");
    expect(read.order).toBe("as-read");
    expect(read.environments).toStrictEqual(snapshot.environments);
    expect(read.companies).toStrictEqual(snapshot.companies);
    expect(rows).toStrictEqual(snapshot.leases);
    expect(end).toStrictEqual({ problems: snapshot.problems, gaps: snapshot.gaps, left: [] });
    // The worlds hold what the comparison is meant to cover.
    expect(snapshot.problems.length + snapshot.gaps.length).toBeGreaterThan(0);
  });
});

describe("PaperclipSource's read of many environments", () => {
  let paperclip: PaperclipStandIn;
  afterEach(() => paperclip?.stop());

  const many = Array.from({ length: 7 }, (_, n) =>
    environment({ id: `aaaaaaaa-aaaa-4aaa-8aaa-${String(n).padStart(12, "0")}`, name: `CreateOS ${n}` }),
  );
  const rows = many.flatMap((env, n) => [
    leaseRow(API, `sb-${n}-a`, { environmentId: env.id }),
    leaseRow(API, `sb-${n}-b`, { environmentId: env.id }),
  ]);

  /** A source whose lease lists answer after `delayOf(n)` ms for the nth environment, recorded as they end. */
  async function sourceWith(delayOf: (n: number) => number, concurrency: number) {
    paperclip = await startPaperclip({
      world: {
        environmentShape: "instance-scoped",
        companies: world("instance-scoped").companies,
        environments: many,
        leases: rows,
      },
      auth: boardKeys,
    });
    const started: number[] = [];
    const answered: number[] = [];
    const delayed: typeof fetch = async (input, init) => {
      const n = many.findIndex((env) => String(input).endsWith(`/environments/${env.id}/leases`));
      if (n < 0) return fetch(input, init);
      started.push(n);
      await new Promise((resolve) => setTimeout(resolve, delayOf(n)));
      const response = await fetch(input, init);
      answered.push(n);
      return response;
    };
    const source = new PaperclipSource({
      id: "paperclip:read",
      url: paperclip.url,
      token: ADMIN_TOKEN,
      timeoutMs: 5000,
      concurrency,
      fetch: delayed,
    });
    return { source, started, answered };
  }

  it("hands each environment's list over as a page, in the environments' order, whichever answers first", async () => {
    // The first environments answer last.
    const { source, answered } = await sourceWith((n) => (many.length - n) * 15, 4);
    const { pages } = await readToEnd(await source.read());
    expect(answered.slice(0, 3), "the lists did not answer out of order").not.toEqual([0, 1, 2]);
    expect(pages.map((page) => page.map((row) => row.id))).toEqual(
      many.map((_, n) => [rows[2 * n]!.id, rows[2 * n + 1]!.id]),
    );
  });

  it("asks for no more lists than it may run at once beyond the page a reader holds", async () => {
    const { source, started } = await sourceWith(() => 5, 2);
    const read = await source.read();
    for await (const _page of read.pages()) {
      // Held long enough for every list to have answered, were they all asked for.
      await new Promise((resolve) => setTimeout(resolve, 100));
      break;
    }
    // The page taken, and two lists running or answered while it was held.
    expect(started).toEqual([0, 1, 2]);
  });
});
