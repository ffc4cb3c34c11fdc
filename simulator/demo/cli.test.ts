import { spawn } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generateDemoWorld, REALISTIC_WORLD } from "./generate.js";
import { DEMO_FILES, writeDemoWorld } from "./write.js";

const ROOT = resolve(import.meta.dirname, "../..");

function demoCli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(join(ROOT, "node_modules/.bin/tsx"), ["simulator/demo/cli.ts", ...args], {
      cwd: ROOT,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

describe("npm run demo:generate", () => {
  it("writes the same files generateDemoWorld + writeDemoWorld write for those options", async () => {
    const [viaCli, viaApi] = await Promise.all([
      mkdtemp(join(tmpdir(), "demo-cli-")),
      mkdtemp(join(tmpdir(), "demo-api-")),
    ]);
    const run = await demoCli(
      "--size",
      "80",
      "--seed",
      "5",
      "--out",
      viaCli,
      "--legacy-api-url",
      "http://127.0.0.1:4999",
      "--realistic",
      "--paperclip-url",
      "http://127.0.0.1:3100",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("export LEASEKEEPER_DEMO_KEY_1=");
    await writeDemoWorld(
      viaApi,
      generateDemoWorld({
        size: 80,
        seed: 5,
        legacyApiUrl: "http://127.0.0.1:4999",
        ...REALISTIC_WORLD,
        paperclipUrl: "http://127.0.0.1:3100",
      }),
    );
    for (const name of Object.values(DEMO_FILES)) {
      expect(await readFile(join(viaCli, name), "utf8"), name).toBe(
        await readFile(join(viaApi, name), "utf8"),
      );
    }
  });

  it("exits 2 with one line when a required flag is missing", async () => {
    const run = await demoCli("--size", "80", "--out", "/tmp/nowhere");
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe("demo:generate: --seed is required (see --help)");
  });
});
