import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../simulator.js";
import {
  ALICE,
  BOB,
  call,
  MARKER_PATH,
  sandbox,
  sleep,
  startTestSimulator,
  waitForStatus,
} from "./helpers.js";

// Raw HTTP: the inputs a well-behaved SDK never sends, and the exact shapes on the wire.

describe("the API over raw HTTP", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterEach(() => sim.reset());
  afterAll(() => sim.stop());

  describe("envelopes and errors", () => {
    it("refuses malformed JSON on create with a field-keyed fail", async () => {
      const { status, body } = await call(sim.url, "/v1/sandboxes", {
        key: ALICE,
        method: "POST",
        body: '{"shape":',
      });
      expect(status).toBe(400);
      expect(body).toEqual({ status: "fail", data: { body: "malformed JSON" } });
    });

    it("names an unknown shape", async () => {
      const { status, body } = await call(sim.url, "/v1/sandboxes", {
        key: ALICE,
        method: "POST",
        body: JSON.stringify({ shape: "s-bad" }),
      });
      expect(status).toBe(400);
      expect(body).toEqual({ status: "fail", data: { shape: "unknown shape: s-bad" } });
    });

    it("requires a shape, and refuses a region this control plane does not serve", async () => {
      const noShape = await call(sim.url, "/v1/sandboxes", { key: ALICE, method: "POST", body: "{}" });
      expect(noShape.body.data).toEqual({ shape: "shape is required" });
      const elsewhere = await call(sim.url, "/v1/sandboxes", {
        key: ALICE,
        method: "POST",
        body: JSON.stringify({ shape: "s-1vcpu-1gb", region: "us" }),
      });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.data.region).toMatch(/serves eu/);
    });

    it("refuses a name already used by a live sandbox of the caller (409)", async () => {
      const create = () =>
        call(sim.url, "/v1/sandboxes", {
          key: ALICE,
          method: "POST",
          body: JSON.stringify({ shape: "s-1vcpu-1gb", name: "twin" }),
        });
      expect((await create()).status).toBe(200);
      expect((await create()).status).toBe(409);
    });

    it("answers 400 for a path id outside ^[A-Za-z0-9_-]{1,200}$", async () => {
      for (const id of ["bad.id", "a%20b", "x".repeat(201)]) {
        const { status, body } = await call(sim.url, `/v1/sandboxes/${id}`, { key: ALICE });
        expect(status, id).toBe(400);
        expect(body).toEqual({ status: "fail", data: { id: "invalid sandbox id" } });
      }
    });

    it("answers 401 without a key or with an unknown one, and accepts the other key headers", async () => {
      expect((await call(sim.url, "/v1/whoami")).body).toEqual({ status: "fail", data: "missing api key" });
      expect((await call(sim.url, "/v1/whoami", { key: "nope" })).status).toBe(401);
      const bearer = await call(sim.url, "/v1/whoami", { headers: { authorization: `Bearer ${ALICE}` } });
      expect(bearer.status).toBe(401);
      for (const header of ["x-access-token", "x-auth-token"]) {
        const { status, body } = await call(sim.url, "/v1/whoami", { headers: { [header]: BOB } });
        expect(status, header).toBe(200);
        expect(body.data.user_id).toBe("user-bob");
      }
    });

    it("serves health and catalog routes without a key", async () => {
      for (const path of ["/healthz", "/readyz", "/v1/shapes", "/v1/rootfs"]) {
        expect((await call(sim.url, path)).status, path).toBe(200);
      }
    });

    it("answers an unknown route with a 404 fail and a wrong method with 405", async () => {
      const unknown = await call(sim.url, "/v1/teapots", { key: ALICE });
      expect(unknown.status).toBe(404);
      expect(unknown.body.status).toBe("fail");
      const wrong = await call(sim.url, "/v1/sandboxes/sb-running", { key: ALICE, method: "PUT" });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get("allow")).toContain("GET");
    });
  });

  describe("listing", () => {
    it("defaults to 50, clamps a large limit to 500 silently, and pages by offset", async () => {
      const all = await call(sim.url, "/v1/sandboxes", { key: ALICE });
      expect(all.body.data.pagination).toEqual({ total: 5, limit: 50, offset: 0, count: 5 });
      const clamped = await call(sim.url, "/v1/sandboxes?limit=100000", { key: ALICE });
      expect(clamped.status).toBe(200);
      expect(clamped.body.data.pagination.limit).toBe(500);
      const second = await call(sim.url, "/v1/sandboxes?limit=2&offset=2", { key: ALICE });
      expect(second.body.data.data.map((view: { id: string }) => view.id)).toEqual([
        "sb-error",
        "sb-destroyed",
      ]);
      expect(second.body.data.pagination).toEqual({ total: 5, limit: 2, offset: 2, count: 2 });
      const beyond = await call(sim.url, "/v1/sandboxes?offset=99", { key: ALICE });
      expect(beyond.body.data.pagination).toEqual({ total: 5, limit: 50, offset: 99, count: 0 });
    });

    it("refuses a negative or non-numeric limit or offset", async () => {
      for (const query of ["limit=-1", "limit=ten", "offset=-5", "limit=1.5"]) {
        const { status, body } = await call(sim.url, `/v1/sandboxes?${query}`, { key: ALICE });
        expect(status, query).toBe(400);
        expect(body.status).toBe("fail");
      }
    });

    it("filters by one status before paging, and keeps destroyed and failed rows listed", async () => {
      const destroyed = await call(sim.url, "/v1/sandboxes?status=destroyed&limit=1", { key: ALICE });
      expect(destroyed.body.data.pagination.total).toBe(1);
      expect(destroyed.body.data.data[0]).toMatchObject({
        id: "sb-destroyed",
        destroyed_at: "2026-11-02T10:00:00Z",
      });
      const failed = await call(sim.url, "/v1/sandboxes?status=failed", { key: ALICE });
      expect(failed.body.data.data.map((view: { id: string }) => view.id)).toEqual(["sb-failed"]);
      expect((await call(sim.url, "/v1/sandboxes?status=sleeping", { key: ALICE })).status).toBe(400);
    });

    it("lists only the caller's sandboxes", async () => {
      const bobs = await call(sim.url, "/v1/sandboxes", { key: BOB });
      expect(bobs.body.data.data.map((view: { id: string }) => view.id)).toEqual(["sb_bob"]);
    });

    it("omits empty optional fields instead of sending null", async () => {
      const { body } = await call(sim.url, "/v1/sandboxes", { key: ALICE });
      for (const view of body.data.data) {
        expect(Object.values(view)).not.toContain(null);
        expect(view).not.toHaveProperty("ingress_url_template");
        expect(Object.keys(view)).toEqual(
          expect.arrayContaining([
            "id",
            "status",
            "vcpu",
            "mem_mib",
            "disk_mib",
            "created_at",
            "ingress_enabled",
          ]),
        );
      }
    });
  });

  describe("the status machine", () => {
    it("answers pause with 202 and X-Poll-After, then settles to paused", async () => {
      const { status, headers, body } = await call(sim.url, "/v1/sandboxes/sb-running/pause", {
        key: ALICE,
        method: "POST",
      });
      expect(status).toBe(202);
      expect(Number(headers.get("x-poll-after"))).toBeGreaterThan(0);
      expect(body.data.status).toBe("pausing");
      const settled = await waitForStatus(sim.url, ALICE, "sb-running", "paused");
      expect(settled.paused_at).toBeDefined();
    });

    it("resumes from error, but not from a terminal state", async () => {
      const fromError = await call(sim.url, "/v1/sandboxes/sb-error/resume", { key: ALICE, method: "POST" });
      expect(fromError.status).toBe(202);
      expect(fromError.body.data.status).toBe("resuming");
      await waitForStatus(sim.url, ALICE, "sb-error", "running");
      const fromDestroyed = await call(sim.url, "/v1/sandboxes/sb-destroyed/resume", {
        key: ALICE,
        method: "POST",
      });
      expect(fromDestroyed.status).toBe(409);
      const alreadyRunning = await call(sim.url, "/v1/sandboxes/sb-running/resume", {
        key: ALICE,
        method: "POST",
      });
      expect(alreadyRunning.status).toBe(200);
    });

    it("refuses a second pause while the first is still pausing (409)", async () => {
      const slow = await startTestSimulator({ transitionMs: 5_000 });
      try {
        expect(
          (await call(slow.url, "/v1/sandboxes/sb-running/pause", { key: ALICE, method: "POST" })).status,
        ).toBe(202);
        const again = await call(slow.url, "/v1/sandboxes/sb-running/pause", { key: ALICE, method: "POST" });
        expect(again.status).toBe(409);
        expect(again.body).toEqual({ status: "fail", data: "sandbox is not running" });
      } finally {
        await slow.stop();
      }
    });

    it("destroys a paused sandbox inline and a running one through destroying", async () => {
      const paused = await call(sim.url, "/v1/sandboxes/sb-paused", { key: ALICE, method: "DELETE" });
      expect(paused.body).toEqual({ status: "success", data: { id: "sb-paused", status: "destroyed" } });
      const running = await call(sim.url, "/v1/sandboxes/sb-running", { key: ALICE, method: "DELETE" });
      expect(running.body.data.status).toBe("destroying");
      const gone = await waitForStatus(sim.url, ALICE, "sb-running", "destroyed");
      expect(gone.destroyed_at).toBeDefined();
      const again = await call(sim.url, "/v1/sandboxes/sb-running", { key: ALICE, method: "DELETE" });
      expect(again.body.data).toEqual({ id: "sb-running", status: "destroyed" });
    });

    it("finishes a seeded transition one transition after start, and hides the ip while creating", async () => {
      const booting = await startTestSimulator({
        fleet: { accounts: [{ apiKey: ALICE, sandboxes: [sandbox("sb-boot", "creating")] }] },
        transitionMs: 200,
      });
      try {
        const first = await call(booting.url, "/v1/sandboxes/sb-boot", { key: ALICE });
        expect(first.body.data.status).toBe("creating");
        expect(first.body.data).not.toHaveProperty("ip");
        const later = await waitForStatus(booting.url, ALICE, "sb-boot", "running");
        expect(later.ip).toBeDefined();
      } finally {
        await booting.stop();
      }
    });
  });

  describe("exec and files", () => {
    const exec = (id: string, cmd: string, args: string[]) =>
      call(sim.url, `/v1/sandboxes/${id}/exec`, {
        key: ALICE,
        method: "POST",
        body: JSON.stringify({ cmd, args }),
      });

    it("runs mkdir -p, echo, rm -f and a bash -lc script", async () => {
      expect((await exec("sb-running", "mkdir", ["-p", "--", "/work/a/b"])).body.data.result.exit_code).toBe(
        0,
      );
      expect(
        (await exec("sb-running", "/bin/echo", ["paperclip-createos-ready"])).body.data.result.stdout,
      ).toBe("paperclip-createos-ready\n");
      expect((await exec("sb-running", "/bin/rm", ["-f", MARKER_PATH])).body.data.result.exit_code).toBe(0);
      const script = await exec("sb-running", "bash", ["-lc", `cat ${MARKER_PATH} || echo 'marker gone'`]);
      expect(script.body.data.result).toMatchObject({ stdout: "marker gone\n", exit_code: 0 });
      expect(script.body.data.exec_ms).toBeGreaterThanOrEqual(0);
    });

    it("streams exec output as NDJSON when asked", async () => {
      const response = await fetch(`${sim.url}/v1/sandboxes/sb-running/exec?stream=true`, {
        method: "POST",
        headers: { "x-api-key": ALICE },
        body: JSON.stringify({ cmd: "echo", args: ["hi"], stream: true }),
      });
      expect(response.headers.get("content-type")).toBe("application/x-ndjson");
      expect(await response.text()).toBe('{"stdout":"hi\\n"}\n{"exit_code":0}\n');
    });

    it("needs a running sandbox (409) and a cmd (400)", async () => {
      expect((await exec("sb-paused", "echo", ["x"])).status).toBe(409);
      const noCmd = await call(sim.url, "/v1/sandboxes/sb-running/exec", {
        key: ALICE,
        method: "POST",
        body: "{}",
      });
      expect(noCmd.status).toBe(400);
    });

    it("stores raw bytes by absolute path and refuses a relative one", async () => {
      const bytes = new Uint8Array([0, 1, 2, 250, 255]);
      const put = await call(sim.url, "/v1/sandboxes/sb-running/files?path=/tmp/blob.bin", {
        key: ALICE,
        method: "PUT",
        body: bytes,
      });
      expect(put.body).toEqual({ status: "success", data: {} });
      const got = await fetch(`${sim.url}/v1/sandboxes/sb-running/files?path=/tmp/blob.bin`, {
        headers: { "x-api-key": ALICE },
      });
      expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes);
      const relative = await call(sim.url, "/v1/sandboxes/sb-running/files?path=tmp/x", { key: ALICE });
      expect(relative.status).toBe(400);
      expect(relative.body.data).toEqual({ path: "path must be absolute" });
      expect((await call(sim.url, "/v1/sandboxes/sb-running/files?path=/none", { key: ALICE })).status).toBe(
        404,
      );
    });
  });

  it("mints sb_ ids when asked to", async () => {
    const underscored = await startTestSimulator({ idPrefix: "sb_" });
    try {
      const { body } = await call(underscored.url, "/v1/sandboxes", {
        key: ALICE,
        method: "POST",
        body: JSON.stringify({ shape: "s-1vcpu-1gb" }),
      });
      expect(body.data.id).toMatch(/^sb_[0-9A-Z]{26}$/);
    } finally {
      await underscored.stop();
    }
  });

  it("keeps ids in creation order when several are made in one millisecond", async () => {
    const created: string[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { body } = await call(sim.url, "/v1/sandboxes", {
          key: BOB,
          method: "POST",
          body: JSON.stringify({ shape: "s-1vcpu-256mb" }),
        });
        created.push(body.data.id);
      }),
    );
    await sleep(5);
    const listed = (await call(sim.url, "/v1/sandboxes", { key: BOB })).body.data.data.map(
      (view: { id: string }) => view.id,
    );
    expect(listed.slice(1)).toEqual([...listed.slice(1)].sort());
    expect(new Set(created).size).toBe(10);
  });
});
