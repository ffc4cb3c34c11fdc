// Preloaded (`node --require`) into a process and, inherited, into each of its threads: as a thread
// ends by itself, it appends one line to the file in LOADED_PACKAGES_RECORD, saying which thread it was
// and how many files of each package below it loaded. Each is CommonJS (pg's ES-module entry only
// re-exports it), so however it was imported, the thread's require cache holds its files.
const { appendFileSync } = require("node:fs");
const { isMainThread, threadId } = require("node:worker_threads");

const PACKAGES = ["pg", "prom-client", "@opentelemetry/api"];

const record = process.env.LOADED_PACKAGES_RECORD;
if (record) {
  process.on("exit", () => {
    const cached = Object.keys(require.cache).map((file) => file.replaceAll("\\", "/"));
    const files = Object.fromEntries(
      PACKAGES.map((name) => [name, cached.filter((file) => file.includes(`/node_modules/${name}/`)).length]),
    );
    const thread = isMainThread ? "main" : `worker ${threadId}`;
    appendFileSync(record, `${JSON.stringify({ thread, files })}\n`);
  });
}
