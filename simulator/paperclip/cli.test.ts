import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = join(ROOT, "node_modules/.bin/tsx");
const KEY = "pcp_board_cli_test_0001";

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function paperclipCli(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(TSX, ["simulator/paperclip/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function worldFile(content: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "paperclip-cli-"));
  const path = join(dir, "world.json");
  await writeFile(path, JSON.stringify(content));
  return path;
}

async function firstLine(run: Run): Promise<string> {
  for (let waited = 0; !run.stdout().includes("\n"); waited += 25) {
    if (waited > 15_000) throw new Error(`no line on stdout; stderr: ${run.stderr()}`);
    await new Promise((done) => setTimeout(done, 25));
  }
  return run.stdout().split("\n")[0] as string;
}

const world = {
  companies: [{ id: "c-1", name: "Acme Robotics" }],
  environments: [{ id: "e-1", name: "Build farm", driver: "sandbox", status: "active", config: {} }],
  leases: [],
};

describe("npm run paperclip", () => {
  let run: Run | undefined;
  afterEach(async () => {
    if (run && run.child.exitCode === null) {
      run.child.kill("SIGTERM");
      await run.exited;
    }
    run = undefined;
  });

  it("prints its URL once it answers, and takes the board key from the variable it is told", async () => {
    run = paperclipCli(["--world", await worldFile(world), "--admin-key-env", "CLI_TEST_KEY"], {
      CLI_TEST_KEY: KEY,
    });
    const line = await firstLine(run);
    const url = /^Paperclip stand-in listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
    expect(url, line).toBeDefined();
    const withKey = await fetch(`${url}/api/companies`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(await withKey.json()).toEqual(world.companies);
    expect((await fetch(`${url}/api/companies`)).status).toBe(403);
    expect(run.stdout() + run.stderr()).not.toContain(KEY);
  });

  it("exits 2 with one line for a world it cannot serve or a key variable that is unset", async () => {
    run = paperclipCli(["--world", await worldFile({ companies: [], environments: [{}], leases: [] })]);
    expect(await run.exited).toBe(2);
    expect(run.stderr().trim()).toBe("paperclip: environments[0] needs a string id");

    run = paperclipCli(["--world", await worldFile(world), "--admin-key-env", "UNSET_FOR_THIS_TEST"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr().trim()).toBe(
      "paperclip: --admin-key-env: the variable UNSET_FOR_THIS_TEST is not set (see --help)",
    );
  });
});
