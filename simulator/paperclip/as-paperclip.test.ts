import { afterEach, describe, expect, it } from "vitest";
import type { PaperclipAuth } from "./auth.js";
import { type PaperclipStandIn, startPaperclip } from "./server.js";
import type { PaperclipWorld } from "./world.js";

// What the stand-in answers because Paperclip answers so, each pinned against the file and commit it
// was read at (paperclipai/paperclip history, as mirrored in roshangautam/paperclip). Decision 200.

const ACME = "11111111-1111-4111-8111-111111111111";
const OLD = "33333333-3333-4333-8333-333333333331";
const MID = "33333333-3333-4333-8333-333333333332";
const NEW = "33333333-3333-4333-8333-333333333333";
const UNDATED = "33333333-3333-4333-8333-333333333334";
const ADMIN_KEY = "pcp_board_admin_0001";

const lease = (id: string, environmentId: string | null, fields: object = {}) => ({
  id,
  companyId: ACME,
  environmentId,
  status: "released",
  leasePolicy: "reuse_by_environment",
  provider: "createos",
  providerLeaseId: `sb-${id}`,
  acquiredAt: "2026-11-01T00:00:00.000Z",
  lastUsedAt: "2026-11-02T00:00:00.000Z",
  cleanupStatus: null,
  createdAt: "2026-11-01T00:00:00.000Z",
  metadata: { provider: "createos" },
  ...fields,
});

const sandbox = (id: string, fields: object = {}) => ({
  id,
  name: `env ${id.slice(-1)}`,
  driver: "sandbox",
  status: "active",
  config: { provider: "createos", apiUrl: "https://api.sb.createos.sh" },
  ...fields,
});

function world(): PaperclipWorld {
  return {
    companies: [{ id: ACME, name: "Acme Robotics", status: "active" }],
    // Out of order on purpose, and one without updatedAt (ordered by its createdAt).
    environments: [
      sandbox(OLD, { createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-02-01T00:00:00.000Z" }),
      sandbox(UNDATED),
      sandbox(NEW, { createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-09-01T00:00:00.000Z" }),
      sandbox(MID, { createdAt: "2026-05-01T00:00:00.000Z" }),
    ],
    leases: [
      lease("lease-new-1", NEW),
      lease("lease-new-2", NEW, { status: "pending_cleanup", cleanupStatus: "pending" }),
      lease("lease-mid-1", MID, { status: "retained", leasePolicy: "retain_on_failure" }),
      lease("lease-orphan", null, { status: "pending_cleanup", cleanupStatus: "failed" }),
    ],
  };
}

const authenticated: PaperclipAuth = {
  mode: "authenticated",
  boardKeys: [{ token: ADMIN_KEY, instanceAdmin: true, companyIds: [] }],
};

describe("the Paperclip stand-in answers as Paperclip does", () => {
  let paperclip: PaperclipStandIn;
  afterEach(() => paperclip?.stop());

  const get = async (path: string, authorization?: string) => {
    const response = await fetch(`${paperclip.url}${path}`, {
      headers: authorization === undefined ? {} : { authorization },
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const ids = (body: unknown) => (body as { id: string }[]).map((row) => row.id);

  // server/src/middleware/auth.ts @ 1c366a9059b7ecb7ba1d8f70902704c766776d8c (PR #11589), the same at
  // de47c58c87611764d2c3b481fe1d537e182ed2b1: a Bearer header is judged in every deployment mode, and
  // `next(unauthorized(...))` reaches the error handler as 401 `{ error: message }`.
  describe.each([
    ["local_trusted", { mode: "local_trusted" } as PaperclipAuth],
    ["authenticated", authenticated],
  ])("%s", (_mode, auth) => {
    it("refuses an unknown bearer token with 401, on every route", async () => {
      paperclip = await startPaperclip({ world: world(), auth });
      const refused = {
        status: 401,
        body: { error: "Agent token did not verify; obtain fresh credentials and retry" },
      };
      expect(await get("/api/companies", "Bearer pcp_board_unknown")).toEqual(refused);
      expect(await get(`/api/environments/${NEW}/leases`, "bearer pcp_board_unknown")).toEqual(refused);
      expect(await get("/api/no-such-route", "Bearer pcp_board_unknown")).toEqual(refused);
    });

    it("refuses an empty bearer token with 401", async () => {
      paperclip = await startPaperclip({ world: world(), auth });
      const refused = {
        status: 401,
        body: { error: "Empty bearer token; provide valid agent credentials and retry" },
      };
      expect(await get("/api/companies", "Bearer")).toEqual(refused);
      expect(await get("/api/companies", "Bearer   ")).toEqual(refused);
    });

    it("calls a JWT-shaped token whose exp has passed expired", async () => {
      paperclip = await startPaperclip({ world: world(), auth });
      const payload = Buffer.from(JSON.stringify({ sub: "agent", exp: 1_000 })).toString("base64url");
      expect(await get("/api/companies", `Bearer e30.${payload}.c2ln`)).toEqual({
        status: 401,
        body: { error: "Expired agent token; obtain fresh credentials and retry" },
      });
    });
  });

  it("local_trusted: no Authorization header is still the local board, which reads everything", async () => {
    paperclip = await startPaperclip({ world: world() });
    expect(ids((await get("/api/companies")).body)).toEqual([ACME]);
    // A header that is not Bearer is no credential either: the local board again.
    const environments = await get(`/api/companies/${ACME}/environments`, "Basic dXNlcjpwdw==");
    expect(environments.status).toBe(200);
    expect((environments.body as { config: object }[])[0]?.config).toMatchObject({ provider: "createos" });
  });

  it("authenticated: a board key reads, no header is 403 as before", async () => {
    paperclip = await startPaperclip({ world: world(), auth: authenticated });
    expect((await get("/api/companies", `Bearer ${ADMIN_KEY}`)).status).toBe(200);
    expect(await get("/api/companies")).toEqual({ status: 403, body: { error: "Board access required" } });
    expect(paperclip.requests.every((request) => !JSON.stringify(request).includes("pcp_"))).toBe(true);
  });

  // server/src/routes/environments.ts and server/src/services/environments.ts @
  // de47c58c87611764d2c3b481fe1d537e182ed2b1: `listLeases` is `WHERE environment_id = :id`, and
  // `GET /environment-leases/:leaseId` is `svc.getLeaseById` alone, loading no environment (so in
  // every version read, e4995bbb through de47c58c).
  it("lists an orphan row under no environment, yet serves it by id", async () => {
    paperclip = await startPaperclip({ world: world() });
    const listed = [];
    for (const environment of ids((await get(`/api/companies/${ACME}/environments`)).body)) {
      listed.push(...ids((await get(`/api/environments/${environment}/leases`)).body));
    }
    expect(listed.sort()).toEqual(["lease-mid-1", "lease-new-1", "lease-new-2"]);
    expect(await get("/api/environment-leases/lease-orphan")).toMatchObject({
      status: 200,
      body: { id: "lease-orphan", environmentId: null, status: "pending_cleanup" },
    });
  });

  // server/src/services/environments.ts @ de47c58c87611764d2c3b481fe1d537e182ed2b1, `list`:
  // `orderBy(desc(environments.updatedAt), desc(environments.createdAt))`.
  it("lists environments newest updatedAt first, then newest createdAt", async () => {
    paperclip = await startPaperclip({ world: world() });
    expect(ids((await get(`/api/companies/${ACME}/environments`)).body)).toEqual([NEW, MID, OLD, UNDATED]);
    paperclip.updateEnvironment(OLD, { updatedAt: "2026-12-01T00:00:00.000Z" });
    expect(ids((await get(`/api/companies/${ACME}/environments?driver=sandbox`)).body)).toEqual([
      OLD,
      NEW,
      MID,
      UNDATED,
    ]);
  });

  // server/src/services/environments.ts @ de47c58c87611764d2c3b481fe1d537e182ed2b1: `toEnvironmentLease`
  // maps every row through `readEnum`, which throws `Unexpected environment lease status value: …`;
  // server/src/middleware/error-handler.ts at the same commit answers a non-HttpError with 500.
  it.each([
    ["status", { status: "paused" }],
    ["lease policy", { leasePolicy: "keep_warm" }],
    ["cleanup status", { cleanupStatus: "skipped" }],
  ])("fails a whole lease list on one row with an unknown %s", async (_field, patch) => {
    paperclip = await startPaperclip({ world: world() });
    paperclip.updateLease("lease-new-2", patch);
    const internal = { status: 500, body: { error: "Internal server error" } };
    expect(await get(`/api/environments/${NEW}/leases`)).toEqual(internal);
    expect(await get("/api/environment-leases/lease-new-2")).toEqual(internal);
    // The other environment's list, and the other row by id, are untouched.
    expect(ids((await get(`/api/environments/${MID}/leases`)).body)).toEqual(["lease-mid-1"]);
    expect((await get("/api/environment-leases/lease-new-1")).status).toBe(200);
    // The status filter runs in SQL, before the rows are mapped: a list that leaves the row out answers.
    if ("status" in patch) {
      expect(ids((await get(`/api/environments/${NEW}/leases?status=released`)).body)).toEqual([
        "lease-new-1",
      ]);
    }
  });

  it("fails the environment list and that environment's reads on an unknown driver or status", async () => {
    paperclip = await startPaperclip({ world: world() });
    paperclip.updateEnvironment(MID, { driver: "kubernetes" });
    const internal = { status: 500, body: { error: "Internal server error" } };
    expect(await get(`/api/companies/${ACME}/environments`)).toEqual(internal);
    expect(await get(`/api/environments/${MID}`)).toEqual(internal);
    expect(await get(`/api/environments/${MID}/leases`)).toEqual(internal);
    expect((await get(`/api/environments/${NEW}`)).status).toBe(200);
  });

  it("with strictEnums: false serves such rows as given, as a build whose enums hold them would", async () => {
    paperclip = await startPaperclip({ world: world(), strictEnums: false });
    paperclip.updateLease("lease-new-2", { status: "paused" });
    expect((await get(`/api/environments/${NEW}/leases`)).body).toMatchObject([
      { id: "lease-new-1" },
      { id: "lease-new-2", status: "paused" },
    ]);
  });
});
