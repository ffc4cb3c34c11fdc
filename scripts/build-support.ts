import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * "Build what is missing": the renderer (dist/renderer) and the Electron entry points (dist-electron)
 * are rebuilt only when absent or older than their sources, so a normal `npm start` does not pay for a
 * full vite build (demo launch to first rows under 3 s).
 */

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const RENDERER_DIR = path.join(ROOT, "dist", "renderer");
export const ELECTRON_DIR = path.join(ROOT, "dist-electron");

const SKIP = new Set(["node_modules", "dist", "dist-electron", ".leasekeeper", "test-results"]);

/** Newest modification time of any non-test source file under the given folders (of `root`). */
export function newestSourceMtime(folders: readonly string[], root = ROOT): number {
  let newest = 0;
  const visit = (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (SKIP.has(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (!/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  for (const folder of folders) visit(path.join(root, folder));
  return newest;
}

function mtime(file: string): number {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}

export const START_BUNDLE = path.join(ELECTRON_DIR, "start.mjs");

/**
 * The start script's bundle depends on everything it imports (core, shared, simulator, scripts) and on
 * its build config, which decides what the bundle holds (the packages it inlines): scripts/launch.mjs,
 * the path of `npm start`, asks the same.
 */
export function startBundleNeedsBuild(root = ROOT): boolean {
  const built = mtime(path.join(root, "dist-electron", "start.mjs"));
  if (built === 0 || mtime(path.join(root, "vite.electron.config.ts")) > built) return true;
  return newestSourceMtime(["electron", "shared", "simulator", "scripts"], root) > built;
}

export async function buildStartBundle(): Promise<void> {
  const { build } = await import("vite");
  await build({ configFile: path.join(ROOT, "vite.electron.config.ts"), mode: "start", logLevel: "warn" });
}

export function rendererNeedsBuild(): boolean {
  const built = mtime(path.join(RENDERER_DIR, "index.html"));
  return built === 0 || newestSourceMtime(["renderer", "shared"]) > built;
}

export function electronNeedsBuild(): boolean {
  const built = Math.min(
    mtime(path.join(ELECTRON_DIR, "main.js")),
    mtime(path.join(ELECTRON_DIR, "preload.cjs")),
  );
  return built === 0 || newestSourceMtime(["electron", "shared"]) > built;
}

export async function buildRenderer(): Promise<void> {
  const { build } = await import("vite");
  await build({ configFile: path.join(ROOT, "vite.config.ts"), logLevel: "warn" });
}

export async function buildElectron(): Promise<void> {
  const { build } = await import("vite");
  const configFile = path.join(ROOT, "vite.electron.config.ts");
  await build({ configFile, mode: "main", logLevel: "warn" });
  await build({ configFile, mode: "preload", logLevel: "warn" });
}

/** Whether Vite, a dev dependency, is installed (an `npm ci --omit=dev` install has none). */
async function viteInstalled(): Promise<boolean> {
  try {
    await import("vite");
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") return false;
    throw error;
  }
}

/**
 * Builds the renderer when needed; says what it did in one line. Without Vite (an install without the
 * dev dependencies, decision 202) it says so instead and the host serves what there is: an older build,
 * or the page saying the interface is not built.
 */
export async function ensureRenderer(say: (line: string) => void): Promise<void> {
  if (!rendererNeedsBuild()) return;
  if (!(await viteInstalled())) {
    const built = existsSync(path.join(RENDERER_DIR, "index.html"));
    say(
      built
        ? "The user interface (dist/renderer) is older than its sources, and Vite, a dev dependency, is not installed to rebuild it: serving it as it is."
        : "The user interface is not built (dist/renderer), and Vite, a dev dependency, is not installed to build it: serving the API only. Run `npm run build` where the dev dependencies are installed.",
    );
    return;
  }
  say("Building the user interface (dist/renderer)…");
  await buildRenderer();
}

export async function ensureElectron(say: (line: string) => void): Promise<void> {
  if (!electronNeedsBuild()) return;
  say("Building the Electron main process (dist-electron)…");
  await buildElectron();
}
