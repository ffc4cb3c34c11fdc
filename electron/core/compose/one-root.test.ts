import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SECRET_KEY } from "../../../test/fixtures/leasekeeper.js";
import { memoryLogger } from "../app/log.js";
import { builtInCommands } from "../cli/run.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { launchBrowserHost } from "../http-host/launch.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  marker,
  markerWorld,
  running,
} from "../markers/testing/marker-world.js";
import { coresOpen, coresOpened, openCore } from "./index.js";

// Every way into the core goes through openCore: each host and each CLI command opens exactly one core
// (the root counts them), and closes it before it answers.

vi.mock("electron", () => import("../../test-support/fake-electron.js"));
process.env.LEASEKEEPER_MAIN_AUTOSTART = "0";

const ours = markedRow("sb-ours", 1);
const lostMetadata = markedRow("sb-lost", 2, { metadata: { marker: marker(2) } });
let w: MarkerWorld;
const made: string[] = [];

beforeAll(async () => {
  w = await markerWorld(
    [running("sb-ours", holding(1)), running("sb-lost", holding(2))],
    [ours, lostMetadata],
  );
  writeFileSync(
    path.join(w.dir, "policy.json"),
    JSON.stringify({
      version: 1,
      operator: "janitor",
      rules: [{ name: "gone", select: { headline: ["leaking"] }, action: "destroy" }],
    }),
  );
});
afterAll(async () => {
  await w?.stop();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What each command is run with: enough to open the core, whatever it then answers. */
const INVOCATIONS: Record<string, string[][]> = {
  scan: [["scan", "--json"]],
  plan: [["plan", "--action", "destroy", "--lease", "sb-nothing", "--json"]],
  apply: [["apply", "--plan", "no-such-plan"]],
  jobs: [["jobs"]],
  resume: [["resume", "--job", "no-such-job"]],
  audit: [["audit"]],
  prove: [["prove", "--lease", "placeholder"]],
  repair: [
    ["repair", "--lease", "placeholder", "--format", "json"],
    ["repair", "--lease", "placeholder", "--apply"],
  ],
  quarantine: [["quarantine", "--list"]],
  watch: [["watch", "--policy", "policy.json", "--once"]],
};

async function opening<T>(body: () => Promise<T>): Promise<{ opened: number; result: T }> {
  const before = coresOpened();
  const result = await body();
  return { opened: coresOpened() - before, result };
}

describe("one composition root", () => {
  it("knows every command in the CLI's registry", async () => {
    expect([...builtInCommands().keys()].sort()).toEqual(Object.keys(INVOCATIONS).sort());
  });

  it.each(Object.entries(INVOCATIONS).flatMap(([name, runs]) => runs.map((args) => [name, args] as const)))(
    "`leasekeeper %s` opens one core through openCore and closes it",
    async (_, args) => {
      const withLease = args.map((arg) => (arg === "placeholder" ? lostMetadata.id : arg));
      const { opened, result } = await opening(() => runCliCaptured(withLease, w));
      expect(opened, `${withLease.join(" ")} opened ${opened} cores: ${result.stderr}`).toBe(1);
      expect(coresOpen()).toBe(0);
    },
  );

  it("Electron's main opens one core through openCore", async () => {
    const fake = await import("../../test-support/fake-electron.js");
    const { main } = await import("../../main.js");
    fake.resetFakeElectron();
    fake.app.userData = mkdtempSync(path.join(tmpdir(), "lk-root-user-data-"));
    made.push(fake.app.userData);
    const { opened, result: handle } = await opening(() =>
      main({ LEASEKEEPER_CONFIG: path.join(w.dir, "leasekeeper.config.json"), ...w.env }),
    );
    expect(handle, JSON.stringify(fake.dialog.errors)).not.toBeNull();
    expect(opened).toBe(1);
    await handle!.core.close();
    expect(coresOpen()).toBe(0);
  });

  it("the browser host opens one core through openCore", async () => {
    const { opened, result: running } = await opening(() =>
      launchBrowserHost({
        configPath: path.join(w.dir, "leasekeeper.config.json"),
        version: "test",
        rendererDir: w.dir,
        env: w.env,
        log: memoryLogger(),
        print: () => undefined,
      }),
    );
    expect(opened).toBe(1);
    await running.close();
    expect(coresOpen()).toBe(0);
  });
});

describe("a key saved through the app's settings", () => {
  it("is the key `prove` and `repair` read sandboxes with", async () => {
    // No LK_KEY in the environment: the only copy of the key is the one saved in the app's vault.
    const env: NodeJS.ProcessEnv = {};
    const core = await openCore({
      configPath: path.join(w.dir, "leasekeeper.config.json"),
      mode: "browser",
      version: "test",
      env,
      log: memoryLogger(),
      autoRefresh: false,
    });
    try {
      const saved = await core.settings.setCredential({
        name: "account",
        origin: w.sim.url,
        apiKey: SECRET_KEY,
      });
      expect(saved.saved).toBe(true);
    } finally {
      await core.close();
    }

    const proved = await runCliCaptured(["prove", "--lease", ours.id, "--json"], { env, dir: w.dir });
    expect(proved.stderr).toBe("");
    expect(proved.code).toBe(0);
    const printed = JSON.parse(proved.stdout) as { proofs: { markerProof: { answer: string } }[] };
    expect(printed.proofs.map((proof) => proof.markerProof.answer)).toEqual(["proven"]);

    const repaired = await runCliCaptured(["repair", "--lease", lostMetadata.id, "--format", "json"], {
      env,
      dir: w.dir,
    });
    expect(repaired.stderr).toBe("");
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).not.toContain(SECRET_KEY);
  });
});
