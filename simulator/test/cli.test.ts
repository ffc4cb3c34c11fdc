import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ALICE, call, smallFleet } from "./helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = join(ROOT, "node_modules/.bin/tsx");

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function simulatorCli(...args: string[]): Run {
  const child = spawn(TSX, ["simulator/cli.ts", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function fleetFile(content: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "sim-cli-"));
  const path = join(dir, "fleet.json");
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

async function firstLine(run: Run, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!run.stdout().includes("\n")) {
    if (Date.now() > deadline) throw new Error(`no line on stdout; stderr: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return run.stdout().split("\n")[0] as string;
}

describe("npm run simulator", () => {
  it("prints exactly one line with the URL, serves the fleet, and exits 0 on SIGTERM", async () => {
    const run = simulatorCli("--fleet", await fleetFile(smallFleet()), "--port", "0", "--alias-port", "0");
    const line = await firstLine(run);
    expect(line).toMatch(/^CreateOS simulator listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = line.replace("CreateOS simulator listening on ", "");
    const { body } = await call(url, "/v1/whoami", { key: ALICE });
    expect(body.data.user_id).toBe("user-alice");
    expect(run.stderr()).toMatch(/also serving the same world on http:\/\/127\.0\.0\.1:\d+/);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toBe(`${line}\n`);
  });

  it("exits 2 with a one-line error on a bad flag", async () => {
    const run = simulatorCli("--fleet", "x.json", "--port", "eighty");
    expect(await run.exited).toBe(2);
    expect(run.stdout()).toBe("");
    expect(run.stderr().trim().split("\n")).toEqual([
      'simulator: --port must be a whole number, got "eighty" (see --help)',
    ]);
  });

  it("exits 2 with a one-line error naming the file and the field of a malformed fleet", async () => {
    const fleet = smallFleet();
    (fleet.accounts[0]?.sandboxes?.[2] as { status: string }).status = "sleeping";
    const path = await fleetFile(fleet);
    const run = simulatorCli("--fleet", path);
    expect(await run.exited).toBe(2);
    const lines = run.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${path}: accounts[0].sandboxes[2].status: expected one of creating|running`);
  });
});
