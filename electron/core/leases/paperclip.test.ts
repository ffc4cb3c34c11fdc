import { afterEach, describe, expect, it } from "vitest";
import type { PaperclipAuth } from "../../../simulator/paperclip/auth.js";
import { type PaperclipStandIn, startPaperclip } from "../../../simulator/paperclip/index.js";
import type { EnvironmentShape, PaperclipWorld } from "../../../simulator/paperclip/world.js";
import { COMPANY, environment, leaseRow, SECRET_KEY } from "../../../test/fixtures/leasekeeper.js";
import { PaperclipSource } from "./paperclip.js";
import { SourceError } from "./source.js";

const API = "https://api.example.test";
const OTHER_API = "https://eu.sb.example.test/v1";
const ADMIN_TOKEN = "pcp_board_ADMIN_1234";
const MEMBER_TOKEN = "pcp_board_MEMBER_5678";
const GLOBEX = "55555555-5555-4555-8555-555555555555";
const INITECH = "66666666-6666-4666-8666-666666666666";

const main = environment({ description: "shared by every team", createdAt: "2026-01-01T00:00:00.000Z" });
const second = environment({
  id: "77777777-7777-4777-8777-777777777777",
  companyId: GLOBEX,
  name: "CreateOS EU",
  config: { provider: "createos", apiUrl: OTHER_API, shape: "s-1vcpu-1gb", reuseLease: false },
});
const ssh = environment({
  id: "88888888-8888-4888-8888-888888888888",
  companyId: INITECH,
  name: "ssh box",
  driver: "ssh",
  config: { host: "bastion" },
});
const e2b = environment({
  id: "99999999-9999-4999-8999-999999999999",
  name: "e2b",
  config: { provider: "e2b" },
});

// Rows of different companies under one shared environment, as current Paperclip writes them.
const acmeRow = leaseRow(API, "sb-acme", { futureColumn: { kept: true } });
const globexRow = leaseRow(API, "sb-globex", {
  companyId: GLOBEX,
  status: "active",
  metadata: { provider: "createos", apiUrl: API, companyId: GLOBEX, environmentId: main.id },
});
const otherProvider = leaseRow(API, "e2b-123", { provider: "e2b", metadata: { provider: "e2b" } });
const malformed = { ...leaseRow(API, "sb-bad"), companyId: 12345 };
const euRow = leaseRow(OTHER_API, "sb-eu", { companyId: GLOBEX, environmentId: second.id });
const e2bRow = leaseRow(API, "e2b-999", { environmentId: e2b.id });
const orphan = leaseRow(API, "sb-orphan", { environmentId: null, status: "pending_cleanup" });

function world(environmentShape: EnvironmentShape): PaperclipWorld {
  return {
    environmentShape,
    companies: [
      { id: COMPANY, name: "Acme", status: "active" },
      { id: GLOBEX, name: "Globex", status: "active" },
      { id: INITECH, name: "Initech", status: "active" },
    ],
    environments: [main, second, ssh, e2b],
    leases: [acmeRow, globexRow, otherProvider, malformed, euRow, e2bRow, orphan],
  };
}

const boardKeys: PaperclipAuth = {
  mode: "authenticated",
  boardKeys: [
    { token: ADMIN_TOKEN, instanceAdmin: true, companyIds: [] },
    { token: MEMBER_TOKEN, instanceAdmin: false, companyIds: [COMPANY, GLOBEX, INITECH] },
  ],
};

const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id).sort();
/** The gap `malformed` leaves in the list of the environment that holds it. */
const malformedGap = {
  source: "paperclip:test",
  origin: API,
  message: expect.stringMatching(
    /^In the leases of environment "CreateOS main", leases\[\d\] could not be read/,
  ),
  environmentId: main.id,
};
const everyCreateosLease = ids([acmeRow, globexRow, otherProvider, euRow]);

describe("PaperclipSource against the Paperclip stand-in", () => {
  let paperclip: PaperclipStandIn;
  afterEach(() => paperclip?.stop());

  const start = async (
    shape: EnvironmentShape = "instance-scoped",
    auth: PaperclipAuth = boardKeys,
    strictEnums = true,
  ) => {
    paperclip = await startPaperclip({ world: world(shape), auth, strictEnums });
    return paperclip;
  };
  const source = (token: string | null = ADMIN_TOKEN, url = paperclip.url) =>
    new PaperclipSource({ id: "paperclip:test", url, token, timeoutMs: 2000 });
  const paths = () => paperclip.requests.map((request) => request.path);

  it("current shape: reads every lease of every company, asking for the shared environment list once", async () => {
    await start("instance-scoped");
    const snapshot = await source().load();

    expect(snapshot.environments.map((env) => env.id)).toEqual([main.id, second.id]);
    expect(snapshot.environments.every((env) => env.companyId === null)).toBe(true);
    expect(ids(snapshot.leases)).toEqual(everyCreateosLease);
    expect(snapshot.companies.map(({ id, name }) => ({ id, name }))).toEqual([
      { id: COMPANY, name: "Acme" },
      { id: GLOBEX, name: "Globex" },
      { id: INITECH, name: "Initech" },
    ]);
    expect(paths()).toEqual([
      "/api/companies",
      `/api/companies/${COMPANY}/environments`,
      `/api/environments/${main.id}/leases`,
      `/api/environments/${second.id}/leases`,
    ]);
    expect(paperclip.requests.every((request) => request.bearer && request.status === 200)).toBe(true);
    expect(snapshot.gaps).toEqual([malformedGap]);
  });

  it("older shape: environments carry their company and every company's list is read", async () => {
    await start("company-scoped");
    const snapshot = await source().load();

    expect(snapshot.environments.map((env) => [env.id, env.companyId])).toEqual([
      [main.id, COMPANY],
      [second.id, GLOBEX],
    ]);
    expect(ids(snapshot.leases)).toEqual(everyCreateosLease);
    expect(paths().filter((path) => path.endsWith("/environments"))).toEqual([
      `/api/companies/${COMPANY}/environments`,
      `/api/companies/${GLOBEX}/environments`,
      `/api/companies/${INITECH}/environments`,
    ]);
    expect(snapshot.gaps).toEqual([malformedGap]);
  });

  it("keeps fields it does not know, shows an unknown status, and skips only the malformed row", async () => {
    // A Paperclip build whose enums hold "paused" (a fork that writes it) serves the row; upstream
    // Paperclip fails the list instead (the next test).
    await start("instance-scoped", boardKeys, false);
    paperclip.updateLease(globexRow.id, { status: "paused" });
    const snapshot = await source().load();
    const byId = new Map(snapshot.leases.map((row) => [row.id, row]));

    expect(byId.get(globexRow.id)?.status).toBe("paused");
    expect(byId.get(globexRow.id)?.companyId).toBe(GLOBEX);
    expect(byId.get(otherProvider.id)?.provider).toBe("e2b");
    expect((snapshot.environments[0] as Record<string, unknown>).description).toBe("shared by every team");
    expect(byId.has(malformed.id)).toBe(false);
    expect(byId.has(orphan.id)).toBe(false);
    expect(snapshot.problems).toEqual([
      {
        source: "paperclip:test",
        index: expect.any(Number),
        message: expect.stringMatching(
          new RegExp(`^environment ${main.id} leases\\[\\d\\]\\.companyId: Invalid input: expected string`),
        ),
      },
    ]);
  });

  // Paperclip's `listLeases` maps every row through `readEnum`, which throws on a value outside its
  // enums, so one such row makes the whole list a 500 (`server/src/services/environments.ts` @
  // de47c58c87611764d2c3b481fe1d537e182ed2b1). That environment's leases are not read; the others are.
  it.each(["instance-scoped", "company-scoped"] as const)(
    "%s: a lease list Paperclip fails on an unknown status is a gap at that origin, and the others are read",
    async (shape) => {
      await start(shape);
      paperclip.updateLease(euRow.id, { status: "paused" });
      const snapshot = await source().load();

      expect(paperclip.requests.find((request) => request.path.includes(second.id))?.status).toBe(500);
      expect(snapshot.environments.map((env) => env.id)).toEqual([main.id, second.id]);
      expect(ids(snapshot.leases)).toEqual(ids([acmeRow, globexRow, otherProvider]));
      expect(snapshot.gaps).toEqual([
        malformedGap,
        {
          source: "paperclip:test",
          origin: "https://eu.sb.example.test",
          message:
            'The leases of environment "CreateOS EU" were not read: Paperclip failed listing them (HTTP 500), ' +
            "as it does for the whole list when one row holds a status, lease policy or cleanup status it does not know. " +
            "Until they are read, no sandbox at https://eu.sb.example.test is reported as untracked.",
          environmentId: second.id,
        },
      ]);
      expect(JSON.stringify(snapshot)).not.toContain("Internal server error");
    },
  );

  it("an unknown lease policy or cleanup status fails the list the same way", async () => {
    await start();
    paperclip.updateLease(acmeRow.id, { leasePolicy: "keep_warm" });
    paperclip.updateLease(euRow.id, { cleanupStatus: "skipped" });
    const snapshot = await source().load();

    expect(snapshot.leases).toEqual([]);
    expect(snapshot.gaps.map((gap) => [gap.origin, gap.message.slice(0, 60)])).toEqual([
      ["https://api.example.test", 'The leases of environment "CreateOS main" were not read: Pap'],
      ["https://eu.sb.example.test", 'The leases of environment "CreateOS EU" were not read: Paper'],
    ]);
  });

  it("a board key that is not an instance admin is shown no configs: every sandbox environment is a gap", async () => {
    await start();
    const snapshot = await source(MEMBER_TOKEN).load();

    expect(snapshot.environments).toEqual([]);
    expect(snapshot.leases).toEqual([]);
    expect(snapshot.gaps).toEqual([
      {
        source: "paperclip:test",
        origin: null,
        message:
          'Paperclip hid the config of environment "CreateOS main" (instance admin access needed), so its leases were not read.',
        environmentId: main.id,
      },
      {
        source: "paperclip:test",
        origin: null,
        message:
          'Paperclip hid the config of environment "CreateOS EU" (instance admin access needed), so its leases were not read.',
        environmentId: second.id,
      },
      {
        source: "paperclip:test",
        origin: null,
        message:
          'Paperclip hid the config of environment "e2b" (instance admin access needed), so its leases were not read.',
        environmentId: e2b.id,
      },
    ]);
  });

  it("a board key that is shown no company is a gap, not an empty instance", async () => {
    paperclip = await startPaperclip({
      world: world("instance-scoped"),
      auth: {
        mode: "authenticated",
        boardKeys: [{ token: MEMBER_TOKEN, instanceAdmin: false, companyIds: [] }],
      },
    });
    const snapshot = await source(MEMBER_TOKEN).load();
    expect(snapshot.leases).toEqual([]);
    expect(snapshot.gaps).toEqual([
      {
        source: "paperclip:test",
        origin: null,
        message:
          "Paperclip listed no company for this key, so no lease could be read; an instance admin's key sees them all.",
        unlistedOnly: true,
      },
    ]);
  });

  it("a lease row it cannot parse is a gap naming the environment whose list held it", async () => {
    await start("instance-scoped");
    const snapshot = await source().load();

    // `malformed` is in the list of "CreateOS main"; "CreateOS EU" is read whole.
    expect(snapshot.problems).toHaveLength(1);
    expect(snapshot.gaps).toEqual([
      {
        source: "paperclip:test",
        origin: API,
        message: expect.stringMatching(
          /^In the leases of environment "CreateOS main", leases\[\d\] could not be read, so not all of its leases are known\.$/,
        ),
        environmentId: main.id,
      },
    ]);
  });

  it("an environment it cannot parse is a gap at every origin, and the others are still read", async () => {
    await start();
    paperclip.malformEnvironment(second.id);
    const snapshot = await source().load();

    expect(snapshot.environments.map((env) => env.id)).toEqual([main.id]);
    expect(ids(snapshot.leases)).toEqual(ids([acmeRow, globexRow, otherProvider]));
    expect(snapshot.gaps).toEqual([
      {
        source: "paperclip:test",
        origin: null,
        message: expect.stringMatching(
          /^An environment could not be read \(environments\[1\]\.name: .+\), so its leases are unknown\.$/,
        ),
        // Its id could be read, though the rest of it could not.
        environmentId: second.id,
      },
      malformedGap,
    ]);
  });

  it.each(["instance-scoped", "company-scoped"] as const)(
    "%s: a lease list that fails is a gap at that environment's origin, never the token or the body",
    async (shape) => {
      await start(shape);
      paperclip.setFaults([{ path: `^/api/environments/${second.id}/leases$`, status: 503 }]);
      const snapshot = await source().load();

      expect(ids(snapshot.leases)).toEqual(ids([acmeRow, globexRow, otherProvider]));
      expect(snapshot.gaps).toEqual([
        malformedGap,
        {
          source: "paperclip:test",
          origin: "https://eu.sb.example.test",
          message: `The leases of environment "CreateOS EU" could not be read: Paperclip request failed (HTTP 503) while listing leases of environment ${second.id}.`,
          environmentId: second.id,
        },
      ]);
      expect(JSON.stringify(snapshot)).not.toContain(ADMIN_TOKEN);
      expect(JSON.stringify(snapshot)).not.toContain("Internal server error");
    },
  );

  it("a local_trusted instance is read with no token at all", async () => {
    await start("instance-scoped", { mode: "local_trusted" });
    const snapshot = await source(null).load();
    expect(ids(snapshot.leases)).toEqual(everyCreateosLease);
    expect(paperclip.requests.some((request) => request.bearer)).toBe(false);
  });

  // Since PR #11589 Paperclip answers 401 for a Bearer token it cannot match in every deployment mode,
  // local_trusted included (`server/src/middleware/auth.ts` @ 1c366a9059b7ecb7ba1d8f70902704c766776d8c).
  it.each([
    ["authenticated", boardKeys],
    ["local_trusted", { mode: "local_trusted" } as PaperclipAuth],
  ] as const)("%s: a wrong token is refused, said so, never the body or the token", async (_mode, auth) => {
    await start("instance-scoped", auth);
    const error = await source(`pcp_wrong_${SECRET_KEY}`)
      .load()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).code).toBe("not-configured");
    expect((error as Error).message).toBe(
      "paperclip:test: Paperclip refused the token (HTTP 401) while listing companies: it is not a board API key of this instance (wrong, revoked or empty).",
    );
    expect((error as Error).message).not.toMatch(/verify|pcp_|lk_test/);
    expect(paths()).toEqual(["/api/companies"]);
  });

  it("an instance that wants a key it was not given is told apart from one that refused it", async () => {
    await start();
    await expect(source(null).load()).rejects.toThrow(
      "paperclip:test: Paperclip request failed (HTTP 403) while listing companies.",
    );
    paperclip.setFaults([{ path: "^/api/companies$", status: 401 }]);
    await expect(source(null).load()).rejects.toThrow(
      "paperclip:test: Paperclip asked for a token (HTTP 401) while listing companies; set a board API key for this source.",
    );
  });

  it("refuses to follow a redirect, so the token never goes elsewhere", async () => {
    await start();
    paperclip.setFaults([{ path: "^/api/companies$", status: 302, location: "/login?next=x" }]);
    await expect(source().load()).rejects.toThrow(
      "paperclip:test: Paperclip answered with a redirect while listing companies; redirects are refused.",
    );
    expect(paths()).toEqual(["/api/companies"]);
  });

  it("re-reads one lease and one environment by id, as Paperclip holds them now", async () => {
    await start();
    expect((await source().readLease(acmeRow.id))?.providerLeaseId).toBe("sb-acme");
    paperclip.updateLease(acmeRow.id, {
      status: "expired",
      providerLeaseId: null,
      metadata: { expired: true },
    });
    expect(await source().readLease(acmeRow.id)).toMatchObject({ status: "expired", providerLeaseId: null });
    expect((await source().readLease(orphan.id))?.environmentId).toBeNull();
    expect(await source().readLease("12121212-1212-4121-8121-121212121212")).toBeNull();
    await expect(source().readLease(malformed.id)).rejects.toThrow(
      /the lease row is malformed \(companyId: /,
    );
    await expect(source().readLease("../companies")).rejects.toThrow(/not valid/);
    expect((await source().readEnvironment(main.id))?.name).toBe("CreateOS main");
    expect(await source().readEnvironment("13131313-1313-4131-8131-131313131313")).toBeNull();
    expect(paths().at(-1)).toBe("/api/environments/13131313-1313-4131-8131-131313131313");
  });

  it("reports a dead instance as a connection failure", async () => {
    await start();
    const url = paperclip.url;
    await paperclip.stop();
    await expect(source(ADMIN_TOKEN, url).load()).rejects.toThrow(
      "paperclip:test: Paperclip connection failed while listing companies.",
    );
  });
});

describe("PaperclipSource's lease lists, read side by side", () => {
  let paperclip: PaperclipStandIn;
  afterEach(() => paperclip?.stop());

  const many = Array.from({ length: 7 }, (_, n) =>
    environment({ id: `aaaaaaaa-aaaa-4aaa-8aaa-${String(n).padStart(12, "0")}`, name: `CreateOS ${n}` }),
  );
  const rows = many.map((env, n) => leaseRow(API, `sb-${n}`, { environmentId: env.id }));

  /** Loads with the given concurrency; each lease list answers late, so the lists overlap if they may. */
  const load = async (concurrency: number) => {
    paperclip = await startPaperclip({
      world: {
        environmentShape: "instance-scoped",
        companies: world("instance-scoped").companies,
        environments: many,
        leases: rows,
      },
      auth: boardKeys,
    });
    let inFlight = 0;
    let most = 0;
    const counting: typeof fetch = async (input, init) => {
      const leases = String(input).endsWith("/leases");
      if (leases) most = Math.max(most, ++inFlight);
      try {
        if (leases) await new Promise((resolve) => setTimeout(resolve, 20));
        return await fetch(input, init);
      } finally {
        if (leases) inFlight--;
      }
    };
    const snapshot = await new PaperclipSource({
      id: "paperclip:test",
      url: paperclip.url,
      token: ADMIN_TOKEN,
      timeoutMs: 2000,
      concurrency,
      fetch: counting,
    }).load();
    return { snapshot, most };
  };

  it("has at most `concurrency` lists in flight and keeps the environments' order", async () => {
    const { snapshot, most } = await load(3);
    expect(most).toBe(3);
    expect(snapshot.leases.map((lease) => lease.id)).toEqual(rows.map((row) => row.id));
    expect(snapshot.gaps).toEqual([]);
  });

  it("reads the lists one at a time when told a concurrency below one", async () => {
    const { snapshot, most } = await load(0);
    expect(most).toBe(1);
    expect(snapshot.leases).toHaveLength(rows.length);
  });
});
