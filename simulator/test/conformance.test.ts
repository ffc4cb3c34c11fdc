import {
  CreateosSandboxAuthError,
  CreateosSandboxClient,
  CreateosSandboxNotFoundError,
  CreateosSandboxRateLimitError,
  CreateosSandboxValidationError,
} from "@nodeops-createos/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FleetInput } from "../fleet.js";
import type { Simulator } from "../simulator.js";
import { ALICE, BOB, MARKER, MARKER_PATH, sandbox, smallFleet, startTestSimulator } from "./helpers.js";

// The official SDK is the client here: if it can drive the simulator, so can anything written
// against the real control plane.

const client = (sim: Simulator, apiKey: string, retry: false | undefined = false) =>
  new CreateosSandboxClient({ apiKey, baseUrl: sim.url, retry, timeoutMs: 5_000 });

describe("the official SDK against the simulator", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(() => sim.stop());

  it("gets a sandbox as a full View", async () => {
    const box = await client(sim, ALICE).getSandbox("sb-running");
    expect(box.status).toBe("running");
    expect(box.data).toMatchObject({
      id: "sb-running",
      vcpu: 1,
      mem_mib: 1024,
      disk_mib: 10240,
      region: "eu",
    });
    expect(box.ip).toMatch(/^10\.\d+\.\d+\.\d+$/);
  });

  it("creates a running sandbox with a sb-<ULID> id", async () => {
    const box = await client(sim, ALICE).createSandbox({
      shape: "s-1vcpu-256mb",
      rootfs: "node",
      name: "made-by-sdk",
    });
    expect(box.id).toMatch(/^sb-[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(box.status).toBe("running");
    const fetched = await client(sim, ALICE).getSandbox(box.id);
    expect(fetched.data).toMatchObject({
      status: "running",
      shape: "s-1vcpu-256mb",
      rootfs: "node",
      name: "made-by-sdk",
    });
  });

  it("rejects an unknown shape as a validation error", async () => {
    await expect(client(sim, ALICE).createSandbox({ shape: "s-99vcpu-1tb" })).rejects.toBeInstanceOf(
      CreateosSandboxValidationError,
    );
  });

  it("pauses with 202, settles to paused, and resumes back to running", async () => {
    const box = await client(sim, ALICE).createSandbox({ shape: "s-1vcpu-1gb" });
    await box.pause();
    expect(box.status).toBe("pausing");
    await box.waitUntilPaused({ timeoutMs: 3_000 });
    expect(box.status).toBe("paused");
    await box.pause(); // already paused: 200, no error
    expect(box.status).toBe("paused");
    await box.resume();
    expect(box.status).toBe("resuming");
    await box.waitUntilRunning({ timeoutMs: 3_000 });
    expect(box.data.last_resumed_at).toBeDefined();
  });

  it("refuses to pause a sandbox that is not running (409)", async () => {
    const box = await client(sim, ALICE).getSandbox("sb-error");
    const failure = await box.pause().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CreateosSandboxValidationError);
    expect((failure as CreateosSandboxValidationError).statusCode).toBe(409);
  });

  it("destroys idempotently and keeps the row listed as destroyed", async () => {
    const sdk = client(sim, ALICE);
    const box = await sdk.createSandbox({ shape: "s-1vcpu-1gb" });
    expect((await box.destroy()).status).toBe("destroying");
    await box.waitUntilDestroyed({ timeoutMs: 3_000 });
    expect(await box.destroy()).toEqual({ id: box.id, status: "destroyed" });
    const destroyed = await sdk.listSandboxes({ status: "destroyed" });
    const row = destroyed.find((listed) => listed.id === box.id);
    expect(row?.data.destroyed_at).toBeDefined();
  });

  it("answers 404 for another account's sandbox, exactly as for a missing one", async () => {
    const theirs = await client(sim, BOB)
      .getSandbox("sb-running")
      .catch((error: unknown) => error);
    const missing = await client(sim, BOB)
      .getSandbox("sb-nowhere")
      .catch((error: unknown) => error);
    expect(theirs).toBeInstanceOf(CreateosSandboxNotFoundError);
    expect(missing).toBeInstanceOf(CreateosSandboxNotFoundError);
    expect((theirs as CreateosSandboxNotFoundError).envelope).toEqual(
      (missing as CreateosSandboxNotFoundError).envelope,
    );
  });

  it("rejects an unknown key with 401", async () => {
    await expect(client(sim, "key-nobody").whoami()).rejects.toBeInstanceOf(CreateosSandboxAuthError);
  });

  it("runs /bin/cat on a stored file, and reports a missing one with exit 1", async () => {
    const box = await client(sim, ALICE).getSandbox("sb-running");
    const found = await box.runCommand("/bin/cat", [MARKER_PATH]);
    expect(found.result).toEqual({ stdout: MARKER, stderr: "", exit_code: 0 });
    const missing = await box.runCommand("/bin/cat", ["/nope"]);
    expect(missing.result.exit_code).toBe(1);
    expect(missing.result.stderr).toContain("No such file or directory");
  });

  it("uploads and downloads files, and the plugin's acquire script works", async () => {
    const box = await client(sim, ALICE).createSandbox({ shape: "s-1vcpu-1gb" });
    await box.sh("mkdir -p -- /paperclip-workspace");
    await box.files.upload(MARKER_PATH, MARKER);
    expect(new TextDecoder().decode(await box.files.download(MARKER_PATH))).toBe(MARKER);
    await expect(box.files.download("/missing")).rejects.toBeInstanceOf(CreateosSandboxNotFoundError);
  });

  it("counts whoami stats from the caller's rows, leaving destroyed ones out of total", async () => {
    const fresh = await startTestSimulator();
    try {
      const me = await client(fresh, ALICE).whoami();
      expect(me).toEqual({ user_id: "user-alice", stats: { running: 1, paused: 1, other: 2, total: 4 } });
    } finally {
      await fresh.stop();
    }
  });

  it("serves the shape and rootfs catalogs without a key", async () => {
    const anonymous = new CreateosSandboxClient({ apiKey: "unused", baseUrl: sim.url });
    const shapes = await anonymous.listShapes();
    expect(shapes.map((shape) => shape.id)).toHaveLength(11);
    expect(shapes.find((shape) => shape.id === "s-0.5vcpu-1gb")).toEqual({
      id: "s-0.5vcpu-1gb",
      vcpu: 1,
      mem_mib: 1024,
      default_disk_mib: 10240,
      cpu_quota_pct: 50,
    });
    expect(await anonymous.listRootfs()).toEqual({ rootfs: ["devbox:1", "node"], default: "devbox:1" });
    expect(await anonymous.healthz()).toEqual({ up: true });
    expect(await anonymous.readyz()).toEqual({ ready: true });
  });
});

describe("pagination through the SDK", () => {
  it("walks 1,200 sandboxes in pages of 500, seeing every id once", async () => {
    const ids = Array.from({ length: 1_200 }, (_, i) => `sb-page-${String(i).padStart(4, "0")}`);
    const fleet: FleetInput = {
      accounts: [{ apiKey: ALICE, sandboxes: ids.map((id, i) => sandbox(id, i % 3 ? "running" : "paused")) }],
    };
    const sim = await startTestSimulator({ fleet });
    try {
      const listed = await client(sim, ALICE).listSandboxes();
      expect(listed.map((box) => box.id)).toEqual(ids);
      const pages = sim.stats().byRoute["GET /v1/sandboxes"];
      expect(pages).toEqual({ "200": 3 });
      const running = await client(sim, ALICE).listSandboxes({ status: "running" });
      expect(running).toHaveLength(800);
    } finally {
      await sim.stop();
    }
  });
});

describe("rate limit through the SDK", () => {
  it("answers 429 with Retry-After once the bucket is empty", async () => {
    const sim = await startTestSimulator({ fleet: smallFleet(), rateLimitPerMinute: 6, rateLimitBurst: 3 });
    try {
      // An injected fetch skips the SDK's warm-up GET /healthz, which would take a token unseen.
      const sdk = new CreateosSandboxClient({ apiKey: ALICE, baseUrl: sim.url, retry: false, fetch });
      const outcomes: unknown[] = [];
      for (let i = 0; i < 5; i++) outcomes.push(await sdk.whoami().catch((error: unknown) => error));
      const limited = outcomes.filter((outcome) => outcome instanceof CreateosSandboxRateLimitError);
      expect(outcomes.slice(0, 3).every((outcome) => !(outcome instanceof Error))).toBe(true);
      expect(limited).toHaveLength(2);
      expect((limited[0] as CreateosSandboxRateLimitError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(sim.stats().rateLimited).toBe(2);
    } finally {
      await sim.stop();
    }
  });
});
