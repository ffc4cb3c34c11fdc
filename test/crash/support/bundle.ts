import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * The job process, bundled once into plain JavaScript: a kill-and-restart loop starts it dozens of times,
 * and `node bundle.mjs` starts in a fraction of the time `tsx` needs to compile TypeScript on every start.
 * Dependencies stay external (resolved from node_modules at run time), so the engine runs exactly as the
 * CLI runs it, better-sqlite3's native module included. The bundle lives under test-results/ so that
 * resolution finds the project's node_modules.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export async function bundleJobProcess(): Promise<string> {
  const dir = path.join(ROOT, "test-results", "crash");
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `job-process-${process.pid}.mjs`);
  await build({
    entryPoints: [path.join(ROOT, "test", "crash", "support", "job-process.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "silent",
  });
  return outfile;
}
