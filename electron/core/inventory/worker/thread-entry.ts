import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts one of the inventory's threads by the name of its entry file beside this one. In the
 * Electron bundle it is `<name>.js` beside `main.js`, an entry of the same build
 * (vite.electron.config.ts). Run from source (tsx: `npm run serve`, the CLI, the tests) it is the
 * TypeScript file; a worker does not inherit its parent's loader hooks, so a two-line bootstrap
 * registers tsx in the thread before importing it.
 */
export function startThread(name: string, options: WorkerOptions): Worker {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new Worker(new URL(`./${name}.js`, here), options);
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, here).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
