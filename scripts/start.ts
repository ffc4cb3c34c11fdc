import { pathToFileURL } from "node:url";
import { buildStartBundle, START_BUNDLE, startBundleNeedsBuild } from "./build-support.js";

/**
 * `npm start`: runs scripts/start-main.ts. Loading ~100 TypeScript modules through tsx costs about a
 * second on a 2-core machine, so the start path is kept as one prebuilt ESM file (dist-electron/start.mjs)
 * and rebuilt only when a source is newer than it (demo launch to first rows under 3 s).
 */
let entry = new URL("./start-main.ts", import.meta.url).href;
try {
  if (startBundleNeedsBuild()) {
    process.stdout.write("Building the start script (dist-electron/start.mjs)…\n");
    await buildStartBundle();
  }
  entry = pathToFileURL(START_BUNDLE).href;
} catch {
  // A failed bundle build costs only speed: run the sources through tsx instead.
}
await import(entry);
