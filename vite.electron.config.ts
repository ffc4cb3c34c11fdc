import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/**
 * Builds Electron's two entry points into dist-electron/ (package.json "main" points at main.js):
 *   vite build -c vite.electron.config.ts --mode main      → dist-electron/main.js   (ESM, Node target)
 *   vite build -c vite.electron.config.ts --mode preload   → dist-electron/preload.cjs
 *   vite build -c vite.electron.config.ts --mode start     → dist-electron/start.mjs (npm start, bundled)
 * The preload runs sandboxed, where only `require("electron")` works: it must be one CommonJS file.
 * Main keeps every npm dependency external (better-sqlite3 is native; the rest load from node_modules).
 * The start build inlines the pure ES-module dependencies (START_INLINED), zod above all: Node resolves,
 * reads and compiles a package's files one at a time, and zod's 95 are loaded by the start script and
 * again by the inventory worker before the demo's first scan can begin. The CommonJS ones stay external,
 * where `__filename` and `require` mean what their code expects (write-file-atomic names its temporary
 * files after `__filename`).
 * The inventory worker and the list-page reader are further entries of the main and start builds,
 * written beside them as inventory-worker.js and list-page-reader.js, where
 * electron/core/inventory/worker/thread-entry.ts looks for them.
 */
const root = fileURLToPath(new URL(".", import.meta.url));
const outDir = fileURLToPath(new URL("./dist-electron", import.meta.url));
const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
export const START_INLINED = [
  "zod",
  "@streamparser/json",
  "p-limit",
  "yocto-queue",
  "ulid",
  "jsonc-parser",
  "csv-stringify",
];

export default defineConfig(({ mode }) => {
  if (mode === "preload") {
    return {
      root,
      publicDir: false,
      logLevel: "warn",
      build: {
        outDir,
        emptyOutDir: false,
        minify: false,
        sourcemap: false,
        target: "chrome140",
        lib: {
          entry: fileURLToPath(new URL("./electron/preload.ts", import.meta.url)),
          formats: ["cjs"],
          fileName: () => "preload.cjs",
        },
        rollupOptions: { external: ["electron"] },
      },
    };
  }
  const entry = mode === "start" ? "./scripts/start-main.ts" : "./electron/main.ts";
  const worker = "./electron/core/inventory/worker/inventory-worker.ts";
  const pageReader = "./electron/core/inventory/worker/list-page-reader.ts";
  return {
    root,
    publicDir: false,
    logLevel: "warn",
    build: {
      outDir,
      emptyOutDir: false,
      minify: false,
      sourcemap: true,
      target: "node20",
      ssr: true,
      rollupOptions: {
        input: {
          [mode === "start" ? "start" : "main"]: fileURLToPath(new URL(entry, import.meta.url)),
          "inventory-worker": fileURLToPath(new URL(worker, import.meta.url)),
          "list-page-reader": fileURLToPath(new URL(pageReader, import.meta.url)),
        },
        external: ["electron", "vite", ...nodeBuiltins],
        output: {
          format: "es",
          // Shared code stays beside the entries: the worker client finds the worker relative to itself.
          chunkFileNames: "[name]-[hash].js",
          entryFileNames: (chunk) =>
            chunk.name === "inventory-worker" || chunk.name === "list-page-reader"
              ? `${chunk.name}.js`
              : mode === "start"
                ? "start.mjs"
                : "main.js",
        },
      },
    },
    ssr: mode === "start" ? { target: "node", noExternal: START_INLINED } : { target: "node" },
  };
});
