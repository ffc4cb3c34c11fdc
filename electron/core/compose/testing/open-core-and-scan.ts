import { readFile, writeFile } from "node:fs/promises";
import { startDemo } from "../../../../scripts/demo.js";
import { memoryLogger } from "../../app/log.js";
import { openCore } from "../open-core.js";

/**
 * Run as a process of its own by `threadsOfOneScan`: starts a small demo, opens the core on its config
 * as the browser host does, scans once and closes everything. With `--with-database-source` the config
 * also names a Paperclip database, at a port where nothing listens: the worker tries to read it, and the
 * scan fails for it. With `--scrape` the core's metrics are scraped once after the scan, as `GET
 * /metrics` would.
 */
const UNREACHABLE_DATABASE = "postgres://leasekeeper@127.0.0.1:1/paperclip";

const demo = await startDemo({ size: 60, seed: "postgres-driver", rateLimitPerMinute: 0 });
const env: NodeJS.ProcessEnv = { ...process.env, ...demo.keys };
const withDatabaseSource = process.argv.includes("--with-database-source");
if (withDatabaseSource) {
  const config = JSON.parse(await readFile(demo.configPath, "utf8")) as { sources: unknown[] };
  config.sources.push({ kind: "paperclip-db", name: "paperclip database", urlEnv: "LK_TEST_PAPERCLIP_DB" });
  await writeFile(demo.configPath, JSON.stringify(config));
  env.LK_TEST_PAPERCLIP_DB = UNREACHABLE_DATABASE;
}
const core = await openCore({
  configPath: demo.configPath,
  mode: "browser",
  version: "test",
  env,
  log: memoryLogger(),
  autoRefresh: false,
});
const scanned = core.inventory.refresh();
await (withDatabaseSource ? scanned.catch(() => undefined) : scanned);
if (process.argv.includes("--scrape")) await core.metrics.render();
await core.close();
await demo.stop();
process.exit(0);
