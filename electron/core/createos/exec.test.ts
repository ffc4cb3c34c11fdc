import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MARKER_PATH } from "../../../shared/domain/marker-proof.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { SECRET_KEY } from "../../../test/fixtures/leasekeeper.js";
import { CreateosClient } from "./client.js";
import { CreateosError } from "./errors.js";
import { configureOrigin } from "./pacer.js";

describe("CreateosClient.execInSandbox against the simulator", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      fleet: {
        accounts: [
          {
            apiKey: SECRET_KEY,
            sandboxes: [
              { id: "sb-run", status: "running", shape: "s-1vcpu-1gb", files: { [MARKER_PATH]: "m" } },
              { id: "sb-paused", status: "paused", shape: "s-1vcpu-1gb" },
            ],
          },
        ],
      },
      rateLimitPerMinute: 0,
    });
    configureOrigin(sim.url, { requestsPerMinute: 6000 });
  });
  afterAll(() => sim.stop());
  beforeEach(() => {
    sim.reset();
    sim.setFaults([]);
  });
  const client = () =>
    new CreateosClient({ apiUrl: sim.url, apiKey: SECRET_KEY, retry: { baseDelayMs: 20 } });

  it("runs one command and reports its exit code, output and request count", async () => {
    expect(await client().execInSandbox("sb-run", "/bin/cat", [MARKER_PATH])).toEqual({
      exitCode: 0,
      stdout: "m",
      stderr: "",
      error: null,
      httpStatus: 200,
      requests: 1,
    });
    const missing = await client().execInSandbox("sb-run", "/bin/cat", ["/nope"]);
    expect(missing).toMatchObject({ exitCode: 1, stderr: "cat: /nope: No such file or directory\n" });
  });

  it("reports a program that could not start as an error, not an exit code to trust", async () => {
    expect((await client().execInSandbox("sb-run", "/bin/nope", [])).error).toContain("not found");
  });

  it("fails as a conflict on a sandbox that is not running, and never resumes it", async () => {
    const error = await client()
      .execInSandbox("sb-paused", "/bin/cat", [MARKER_PATH])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CreateosError);
    expect((error as CreateosError).code).toBe("conflict");
    expect(sim.stats().byRoute["POST /v1/sandboxes/:id/resume"]).toBeUndefined();
  });

  it("is not retried after a server error: the command may have run", async () => {
    sim.setFaults([{ method: "POST", path: "/exec$", status: 503, count: 1 }]);
    const error = await client()
      .execInSandbox("sb-run", "/bin/cat", [MARKER_PATH])
      .catch((caught: unknown) => caught);
    expect((error as CreateosError).code).toBe("server-error");
    expect((error as CreateosError).requests).toBe(1);
  });

  it("refuses an id outside the plugin's pattern before any request", async () => {
    const error = await client()
      .execInSandbox("../whoami", "/bin/cat", [])
      .catch((caught: unknown) => caught);
    expect((error as CreateosError).code).toBe("invalid-id");
    expect(sim.stats().total).toBe(0);
  });
});
