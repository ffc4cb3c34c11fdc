import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_INLINED } from "../vite.electron.config.js";
import { ROOT } from "./build-support.js";

/**
 * The start script's bundle as `npm start` builds it (vite.electron.config.ts, mode "start"): the pure
 * ES-module dependencies are inside it, and the bundle, run by plain Node, still serves the demo's
 * inventory. It is built into a folder of its own beside dist-electron, so that the paths it derives from
 * its own place (the repository root, node_modules) are the ones dist-electron/start.mjs would find.
 */

let outDir: string;

beforeAll(async () => {
  outDir = mkdtempSync(path.join(ROOT, ".start-bundle-test-"));
  const { build } = await import("vite");
  await build({
    configFile: path.join(ROOT, "vite.electron.config.ts"),
    mode: "start",
    logLevel: "silent",
    build: { outDir, emptyOutDir: false, sourcemap: false },
  });
}, 120_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** Every package the built files import from node_modules, by name. */
function packagesImported(): Set<string> {
  const builtins = new Set(builtinModules);
  const names = new Set<string>();
  for (const file of readdirSync(outDir).filter((name) => /\.m?js$/.test(name))) {
    const text = readFileSync(path.join(outDir, file), "utf8");
    for (const match of text.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^"'\n;]*?from\s*["']([^"'./][^"']*)["']/g,
    )) {
      const specifier = match[1]!;
      if (specifier.startsWith("node:") || builtins.has(specifier.split("/")[0]!)) continue;
      const parts = specifier.split("/");
      names.add(specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!);
    }
  }
  return names;
}

describe("the start script's bundle", () => {
  it("holds its pure ES-module dependencies instead of importing them from node_modules", () => {
    const imported = packagesImported();
    // The CommonJS and native ones are still imported: the check reads the imports it means to.
    expect(imported).toContain("better-sqlite3");
    for (const name of START_INLINED) expect(imported).not.toContain(name);
  });

  it("runs in plain Node and serves the demo's inventory", async () => {
    const child = spawn(process.execPath, [path.join(outDir, "start.mjs")], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LEASEKEEPER_NO_ELECTRON: "1" },
      detached: true,
    });
    try {
      const { url, output } = await servingUrl(child);
      const leases = Number(/a generated world of (\d+) leases/.exec(output)?.[1]);
      expect(leases).toBeGreaterThan(0);
      const origin = new URL(url).origin;
      const token = new URLSearchParams(new URL(url).hash.slice(1)).get("token")!;
      const call = async <T>(channel: string) => {
        const response = await fetch(new URL(`/api/${channel}`, origin), {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Leasekeeper-Token": token, Origin: origin },
          body: "{}",
        });
        return (await response.json()) as { ok: boolean; data?: T };
      };
      const inventory = await call<{ leases: { leaseId: string[] } }>("inventory:get");
      expect(inventory.ok).toBe(true);
      // The view holds the live rows; the rest of the world's leases are history, paged separately.
      const rows = inventory.data!.leases.leaseId.length;
      expect(rows).toBeGreaterThan(0);
      expect(rows).toBeLessThanOrEqual(leases);
      // The demo's janitor policy is read with jsonc-parser, one of the inlined packages.
      const plan = await call<unknown>("janitor:plan");
      expect(plan.ok).toBe(true);
    } finally {
      await stop(child);
    }
  }, 60_000);
});

function servingUrl(child: ChildProcess): Promise<{ url: string; output: string }> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`no serving line in 40 s: ${output}`)), 40_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /Leasekeeper is serving on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, output });
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the bundle exited (${code}) before serving: ${output}`));
    });
  });
}

/** Ctrl-C to its group, as a terminal would: it stops the demo it started and removes its folder. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    process.kill(-child.pid!, "SIGINT");
  });
}
