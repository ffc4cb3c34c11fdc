import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, KEY_A, type World } from "../actions/testing/world.js";
import type { CliCommand } from "./command.js";
import { runCli } from "./run.js";
import { runCliCaptured } from "./testing/run-captured.js";

// The lines a command writes itself, not only the failures the runner prints: once the command has
// opened the core, no key it knows reaches the terminal, whatever the line was built from.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe("a line a command writes itself", () => {
  it("has the keys in use taken out, on stdout and stderr, and keeps the terminal's isTTY", async () => {
    const key = "k3y-in-use-0123456789";
    let sawTty: unknown = null;
    const echo: CliCommand = {
      name: "echo",
      summary: "Writes what it is given.",
      usage: "Usage: leasekeeper echo",
      run: async (_args, io) => {
        io.keysInUse?.((text) => text.split(key).join("[redacted]"));
        sawTty = (io.stdout as { isTTY?: boolean }).isTTY;
        io.stdout.write(`out ${key}\n`);
        io.stderr.write(`err ${key}\n`);
        return 0;
      },
    };
    let stdout = "";
    let stderr = "";
    const terminal = { isTTY: true, write: (text: string) => (stdout += text) };
    const code = await runCli(
      ["echo"],
      {
        stdout: terminal,
        stderr: { write: (text: string) => (stderr += text) },
        env: {},
        cwd: process.cwd(),
      },
      new Map([["echo", echo]]),
    );
    expect(code).toBe(0);
    expect(stdout).toBe("out [redacted]\n");
    expect(stderr).toBe("err [redacted]\n");
    expect(sawTty).toBe(true);
  });

  it("scan --environment naming an environment no source lists does not echo a key in it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-1" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-1", environmentId: "env-1", sandboxId: "sb-1" }],
    });
    const ran = await runCliCaptured(["scan", "--environment", `env-${KEY_A}`], world);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe('leasekeeper scan: no source lists an environment "env-[redacted]".\n');
    expect(`${ran.stdout}${ran.stderr}`).not.toContain(KEY_A);
  });
});
