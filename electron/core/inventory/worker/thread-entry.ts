import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts one of the inventory's threads by the name of its entry file beside this one. Built, it is
 * `<name>.js` in the same folder as the chunk holding this code: both builds that include the threads
 * make them entries of their own, written flat beside the shared chunks (vite.cli.config.ts →
 * dist-cli/, vite.electron.config.ts → dist-electron/), so plain Node starts them with no loader. Run
 * from source (tsx: `npm run serve`, `npm run leasekeeper`, the tests) it is the TypeScript file; a
 * worker does not inherit its parent's loader hooks, so a two-line bootstrap registers tsx in the
 * thread before importing it. Only that source path needs tsx, a dev dependency.
 */
export function startThread(name: string, options: WorkerOptions): Worker {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new Worker(new URL(`./${name}.js`, here), options);
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, here).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
