// `npm start` without tsx's own start-up (~0.7 s): plain Node runs the prebuilt start bundle
// (dist-electron/start.mjs), rebuilding it first when a source is newer, and falls back to the
// TypeScript sources through tsx's loader if the bundle cannot be built. Same behaviour as
// scripts/start.ts, which stays the entry for `tsx scripts/start.ts`. `npm start` is a path of the
// development checkout (it builds the user interface and the demo with Vite): without the dev
// dependencies it says so and points at what runs without them (decision 202).
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bundle = path.join(root, "dist-electron", "start.mjs");
const skip = new Set(["node_modules", "dist", "dist-electron", ".leasekeeper", "test-results"]);

function newest(dir) {
  let latest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (skip.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(full));
    else if (!/\.test\.tsx?$/.test(entry.name)) latest = Math.max(latest, statSync(full).mtimeMs);
  }
  return latest;
}

function stale() {
  let built = 0;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return true;
  }
  // The build's own config counts too: it decides what the bundle holds (the packages it inlines).
  const config = statSync(path.join(root, "vite.electron.config.ts"), { throwIfNoEntry: false });
  if (config !== undefined && config.mtimeMs > built) return true;
  return ["electron", "shared", "simulator", "scripts"].some((dir) => newest(path.join(root, dir)) > built);
}

let entry = pathToFileURL(bundle).href;
try {
  if (stale()) {
    process.stdout.write("Building the start script (dist-electron/start.mjs)…\n");
    const { build } = await import("vite");
    await build({ configFile: path.join(root, "vite.electron.config.ts"), mode: "start", logLevel: "warn" });
  }
} catch {
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch {
    process.stderr.write(
      "leasekeeper start: `npm start` needs the dev dependencies (npm ci) to build the start script. " +
        "Without them: `npx leasekeeper <command>`, or the browser host `node dist-cli/serve.js --config FILE`.\n",
    );
    process.exit(1);
  }
  tsx.register();
  entry = pathToFileURL(path.join(root, "scripts", "start-main.ts")).href;
}
await import(entry);
