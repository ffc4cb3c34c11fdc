import { afterEach, describe, expect, it } from "vitest";
import type { PaperclipAuth } from "./auth.js";
import { type PaperclipStandIn, startPaperclip } from "./server.js";
import type { PaperclipWorld } from "./world.js";

const ACME = "11111111-1111-4111-8111-111111111111";
const GLOBEX = "22222222-2222-4222-8222-222222222222";
const BUILD = "33333333-3333-4333-8333-333333333333";
const SSH = "44444444-4444-4444-8444-444444444444";
const ADMIN_KEY = "pcp_board_admin_0001";
const MEMBER_KEY = "pcp_board_member_0002";
const LONER_KEY = "pcp_board_loner_0003";

const lease = (id: string, companyId: string, environmentId: string | null, fields: object = {}) => ({
  id,
  companyId,
  environmentId,
  status: "released",
  leasePolicy: "reuse_by_environment",
  provider: "createos",
  providerLeaseId: `sb-${id}`,
  acquiredAt: "2026-11-01T00:00:00.000Z",
  lastUsedAt: "2026-11-02T00:00:00.000Z",
  createdAt: "2026-11-01T00:00:00.000Z",
  metadata: { provider: "createos", companyId, environmentId },
  ...fields,
});

function world(environmentShape: PaperclipWorld["environmentShape"] = "instance-scoped"): PaperclipWorld {
  return {
    environmentShape,
    companies: [
      { id: ACME, name: "Acme Robotics", status: "active" },
      { id: GLOBEX, name: "Globex", status: "active" },
    ],
    environments: [
      {
        id: BUILD,
        companyId: ACME,
        name: "Build farm",
        description: null,
        driver: "sandbox",
        status: "active",
        config: { provider: "createos", apiUrl: "https://api.sb.createos.sh", shape: "s-1vcpu-1gb" },
        envVars: { TOKEN: { type: "secret_ref" } },
        metadata: { team: "infra" },
      },
      {
        id: SSH,
        companyId: GLOBEX,
        name: "Bastion",
        description: null,
        driver: "ssh",
        status: "archived",
        config: { host: "bastion.internal" },
        metadata: null,
      },
    ],
    leases: [
      lease("lease-old", ACME, BUILD, { lastUsedAt: "2026-11-01T00:00:00.000Z" }),
      lease("lease-new", GLOBEX, BUILD, { lastUsedAt: "2026-11-20T00:00:00.000Z", status: "active" }),
      // Same last use: the newer row first.
      lease("lease-tie-a", ACME, BUILD, { createdAt: "2026-11-01T00:00:00.000Z" }),
      lease("lease-tie-b", ACME, BUILD, { createdAt: "2026-11-01T06:00:00.000Z" }),
      lease("lease-orphan", GLOBEX, null, { status: "pending_cleanup" }),
    ],
  };
}

const authenticated: PaperclipAuth = {
  mode: "authenticated",
  boardKeys: [
    { token: ADMIN_KEY, instanceAdmin: true, companyIds: [] },
    { token: MEMBER_KEY, instanceAdmin: false, companyIds: [GLOBEX] },
    { token: LONER_KEY, instanceAdmin: false, companyIds: [] },
  ],
};

describe("Paperclip stand-in", () => {
  let paperclip: PaperclipStandIn;
  afterEach(() => paperclip?.stop());

  const get = async (path: string, token?: string) => {
    const response = await fetch(`${paperclip.url}${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const ids = (body: unknown) => (body as { id: string }[]).map((row) => row.id);

  it("serves current, instance-scoped environments: every company's list is the same, without companyId", async () => {
    paperclip = await startPaperclip({ world: world() });
    const acme = await get(`/api/companies/${ACME}/environments`);
    const globex = await get(`/api/companies/${GLOBEX}/environments`);
    expect(acme.status).toBe(200);
    expect(ids(acme.body)).toEqual([BUILD, SSH]);
    expect(globex.body).toEqual(acme.body);
    expect((acme.body as object[]).every((environment) => !("companyId" in environment))).toBe(true);
    // local_trusted reads everything: the config is shown.
    expect((acme.body as { config: object }[])[0]?.config).toMatchObject({ provider: "createos" });
    expect(ids((await get(`/api/companies/${ACME}/environments?driver=ssh`)).body)).toEqual([SSH]);
    expect(ids((await get(`/api/companies/${ACME}/environments?status=active`)).body)).toEqual([BUILD]);
  });

  it("serves older, company-scoped environments with companyId, each company only its own", async () => {
    paperclip = await startPaperclip({ world: world("company-scoped") });
    const acme = await get(`/api/companies/${ACME}/environments`);
    expect(acme.body).toMatchObject([{ id: BUILD, companyId: ACME }]);
    expect((await get(`/api/companies/${GLOBEX}/environments`)).body).toMatchObject([
      { id: SSH, companyId: GLOBEX },
    ]);
  });

  it("lists an environment's leases newest use first (then newest row), filters by status, never lists an orphan", async () => {
    paperclip = await startPaperclip({ world: world() });
    const leases = await get(`/api/environments/${BUILD}/leases`);
    expect(ids(leases.body)).toEqual(["lease-new", "lease-tie-b", "lease-tie-a", "lease-old"]);
    expect((leases.body as { companyId: string }[]).map((row) => row.companyId)).toEqual([
      GLOBEX,
      ACME,
      ACME,
      ACME,
    ]);
    expect(ids((await get(`/api/environments/${BUILD}/leases?status=active`)).body)).toEqual(["lease-new"]);
    expect(ids((await get(`/api/environments/${SSH}/leases`)).body)).toEqual([]);
    // The lease route loads no environment, so an orphan is still served by id.
    const orphan = await get("/api/environment-leases/lease-orphan");
    expect(orphan.body).toMatchObject({ environmentId: null, status: "pending_cleanup" });
  });

  it("answers what is missing with Paperclip's { error } bodies", async () => {
    paperclip = await startPaperclip({ world: world() });
    expect(await get("/api/environments/nope")).toEqual({
      status: 404,
      body: { error: "Environment not found" },
    });
    expect(await get("/api/environments/nope/leases")).toEqual({
      status: 404,
      body: { error: "Environment not found" },
    });
    expect(await get("/api/environment-leases/nope")).toEqual({
      status: 404,
      body: { error: "Environment lease not found" },
    });
    expect((await get("/api/nothing-here")).status).toBe(404);
  });

  it("with board API keys: no key or an unknown one is refused, an admin reads all, a member sees the restricted view", async () => {
    paperclip = await startPaperclip({ world: world(), auth: authenticated });
    expect(await get("/api/companies")).toEqual({ status: 403, body: { error: "Board access required" } });
    expect(await get(`/api/environments/${BUILD}/leases`, "pcp_unknown")).toEqual({
      status: 401,
      body: { error: "Agent token did not verify; obtain fresh credentials and retry" },
    });

    expect(ids((await get("/api/companies", ADMIN_KEY)).body)).toEqual([ACME, GLOBEX]);
    const full = (await get(`/api/environments/${BUILD}`, ADMIN_KEY)).body as Record<string, unknown>;
    expect(full.config).toMatchObject({ apiUrl: "https://api.sb.createos.sh" });
    expect(full.metadata).toEqual({ team: "infra" });

    expect(ids((await get("/api/companies", MEMBER_KEY)).body)).toEqual([GLOBEX]);
    const restricted = (await get(`/api/companies/${GLOBEX}/environments`, MEMBER_KEY)).body as Record<
      string,
      unknown
    >[];
    expect(restricted[0]).toMatchObject({ id: BUILD, config: {}, envVars: {}, metadata: null });
    expect(restricted[1]).toMatchObject({ id: SSH, config: {}, metadata: null });
    expect(restricted[1]).not.toHaveProperty("envVars");
    // Lease rows are not redacted: a member reads them whole.
    expect((await get("/api/environment-leases/lease-new", MEMBER_KEY)).body).toMatchObject({
      metadata: { provider: "createos" },
    });

    expect(await get(`/api/companies/${ACME}/environments`, LONER_KEY)).toEqual({
      status: 403,
      body: { error: "Company membership or instance admin access required" },
    });
    expect(paperclip.requests.every((request) => !JSON.stringify(request).includes("pcp_"))).toBe(true);
  });

  it("in the older shape a member is refused another company's environments", async () => {
    paperclip = await startPaperclip({ world: world("company-scoped"), auth: authenticated });
    expect(await get(`/api/companies/${ACME}/environments`, MEMBER_KEY)).toEqual({
      status: 403,
      body: { error: "User does not have access to this company" },
    });
    expect((await get(`/api/companies/${GLOBEX}/environments`, MEMBER_KEY)).status).toBe(200);
  });

  it("changes rows between requests, fails a route on demand and serves an environment malformed", async () => {
    paperclip = await startPaperclip({ world: world() });
    paperclip.updateLease("lease-new", { status: "released", releasedAt: "2026-11-21T00:00:00.000Z" });
    expect((await get("/api/environment-leases/lease-new")).body).toMatchObject({
      id: "lease-new",
      status: "released",
    });

    paperclip.setFaults([{ path: `^/api/environments/${BUILD}/leases$`, status: 503, count: 1 }]);
    expect(await get(`/api/environments/${BUILD}/leases`)).toEqual({
      status: 503,
      body: { error: "Internal server error" },
    });
    expect((await get(`/api/environments/${BUILD}/leases`)).status).toBe(200);

    paperclip.malformEnvironment(SSH);
    const [build, ssh] = (await get(`/api/companies/${ACME}/environments`)).body as Record<string, unknown>[];
    expect(build?.name).toBe("Build farm");
    expect(ssh).toMatchObject({ id: SSH, name: 404, config: "unreadable" });

    expect(() => paperclip.updateLease("missing", {})).toThrow("no lease missing");
    expect(paperclip.requests.map((request) => request.status)).toEqual([200, 503, 200, 200]);
  });

  it("offers the same control over /_paperclip for another process, and refuses a broken world", async () => {
    paperclip = await startPaperclip({ world: world() });
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${paperclip.url}${path}`, { method, body: JSON.stringify(body) });

    expect((await send("PATCH", "/_paperclip/leases/lease-old", { status: "expired" })).status).toBe(200);
    expect((await get("/api/environment-leases/lease-old")).body).toMatchObject({ status: "expired" });

    const next = world("company-scoped");
    next.leases = [];
    expect((await send("PUT", "/_paperclip/world", next)).status).toBe(200);
    expect(ids((await get(`/api/environments/${BUILD}/leases`)).body)).toEqual([]);

    const broken = await send("PUT", "/_paperclip/world", { companies: [], environments: [{}], leases: [] });
    expect(broken.status).toBe(422);
    expect(await broken.json()).toEqual({ error: "environments[0] needs a string id" });

    expect(
      (await send("PUT", "/_paperclip/faults", { faults: [{ path: "^/api/companies$", status: 500 }] }))
        .status,
    ).toBe(200);
    expect((await get("/api/companies")).status).toBe(500);
    // Control routes are neither authenticated nor recorded.
    expect(paperclip.requests.map((request) => request.path)).toEqual([
      "/api/environment-leases/lease-old",
      `/api/environments/${BUILD}/leases`,
      "/api/companies",
    ]);
  });
});
