import path from "node:path";
import { build, type UserConfig } from "vite";
import cliBuild from "../../vite.cli.config.js";
import { ROOT } from "./processes.js";

/** Where the compiled child and its threads are written (ignored by git; rebuilt on every bench run). */
const OUT_DIR = path.join(ROOT, "bench", ".compiled");

let compiled: Promise<string> | null = null;

/**
 * The inventory benchmarks' measured process (bench/inventory-child.ts), compiled to JavaScript with
 * the configuration `npm run build:cli` compiles the shipped hosts with (vite.cli.config.ts), its two
 * threads written beside it as they are in dist-cli/. The hosts an operator runs are that JavaScript in
 * plain Node; run from the TypeScript sources, each thread would start tsx's loader, a thread of its
 * own, and compile its modules as it loads them, and the process measured would not be the one shipped.
 *
 * Written to bench/.compiled/ so that the child's dependencies resolve from the project's node_modules
 * and `bench/lib/processes.ts`'s ROOT (two folders up) is the project's root there too. Built once per
 * bench process.
 */
export function compiledInventoryChild(): Promise<string> {
  compiled ??= compile();
  return compiled;
}

async function compile(): Promise<string> {
  const started = performance.now();
  const shipped = cliBuild as UserConfig;
  const rollupOptions = shipped.build?.rollupOptions ?? {};
  const output = Array.isArray(rollupOptions.output) ? rollupOptions.output[0] : rollupOptions.output;
  await build({
    ...shipped,
    configFile: false,
    build: {
      ...shipped.build,
      outDir: OUT_DIR,
      rollupOptions: {
        ...rollupOptions,
        input: {
          "inventory-child": path.join(ROOT, "bench", "inventory-child.ts"),
          "inventory-worker": path.join(ROOT, "electron/core/inventory/worker/inventory-worker.ts"),
          "list-page-reader": path.join(ROOT, "electron/core/inventory/worker/list-page-reader.ts"),
        },
        output: {
          ...output,
          banner: "// Compiled by the benchmark (bench/lib/compiled-child.ts): do not edit.",
        },
      },
    },
  });
  process.stderr.write(
    `  compiled the measured process to ${path.relative(ROOT, OUT_DIR)}/ in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return path.join(OUT_DIR, "inventory-child.js");
}
