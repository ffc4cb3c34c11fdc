// Preloaded (`node --require`) into a process and, inherited, into each of its threads: as a thread
// ends by itself, it appends one line to the file in POSTGRES_DRIVER_RECORD, saying which thread it was
// and how many of the `pg` driver's files it loaded. The driver is CommonJS (its ES-module entry only
// re-exports it), so however it was imported, the thread's require cache holds its files.
const { appendFileSync } = require("node:fs");
const { isMainThread, threadId } = require("node:worker_threads");

const record = process.env.POSTGRES_DRIVER_RECORD;
if (record) {
  process.on("exit", () => {
    const pgFile = /[/\\]node_modules[/\\]pg[/\\]/;
    const driverFiles = Object.keys(require.cache).filter((file) => pgFile.test(file));
    const thread = isMainThread ? "main" : `worker ${threadId}`;
    appendFileSync(record, `${JSON.stringify({ thread, driverFiles: driverFiles.length })}\n`);
  });
}
