import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { Demo } from "../../../../scripts/demo.js";
import { type Core, type CoreOptions, openCore } from "../../compose/index.js";
import { memoryLogger } from "../log.js";

/** The variable every machine's config names for the team's store. */
export const STORE_URL_ENV = "LEASEKEEPER_STORE_URL";

/** One operator's machine: a data directory of its own, with a config of the demo's. */
export interface Machine {
  dir: string;
  configPath: string;
  dataDir: string;
}

/**
 * Machines of a team sharing one PostgreSQL store, each a config of the same demo in a directory of its
 * own. The tests that share a store open apps on them; `removeAll` deletes every directory made.
 */
export class TeamMachines {
  readonly #demo: Demo;
  readonly #dirs: string[] = [];

  constructor(demo: Demo) {
    this.#demo = demo;
  }

  /**
   * A machine (or `at`'s directory again, with another config); `sourceGone` points its ledger at
   * nothing, so no scan of its own can succeed; `store` names the team's store in its config.
   */
  machine(options: { store: boolean; sourceGone?: boolean; at?: Machine }): Machine {
    const dir = options.at?.dir ?? mkdtempSync(path.join(tmpdir(), "lk-team-machine-"));
    if (options.at === undefined) this.#dirs.push(dir);
    const config = JSON.parse(readFileSync(this.#demo.configPath, "utf8")) as {
      sources: { path?: string; name?: string }[];
      dataDir: string;
      store?: unknown;
    };
    for (const source of config.sources) {
      // Named, so every machine calls it the same source wherever its file is.
      source.name = "team ledger";
      if (source.path !== undefined)
        source.path = options.sourceGone
          ? path.join(dir, "no-such-ledger.json")
          : path.resolve(path.dirname(this.#demo.configPath), source.path);
    }
    config.dataDir = path.join(dir, "data");
    if (options.store) config.store = { kind: "postgres", urlEnv: STORE_URL_ENV };
    const configPath = path.join(dir, "leasekeeper.config.json");
    writeFileSync(configPath, JSON.stringify(config));
    return { dir, configPath, dataDir: config.dataDir };
  }

  /** The environment a machine's app runs with: the demo's keys and the store's URL. */
  envFor(url: string): NodeJS.ProcessEnv {
    return { ...process.env, ...this.#demo.keys, [STORE_URL_ENV]: url };
  }

  open(
    at: Machine,
    url: string,
    options: { log?: ReturnType<typeof memoryLogger>; actions?: CoreOptions["actions"] } = {},
  ): Promise<Core> {
    return openCore({
      configPath: at.configPath,
      mode: "browser",
      version: "test",
      env: this.envFor(url),
      log: options.log ?? memoryLogger(),
      autoRefresh: false,
      ...(options.actions === undefined ? {} : { actions: options.actions }),
    });
  }

  removeAll(): void {
    for (const dir of this.#dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows of one statement against the team's store, over a connection of its own. */
export async function queryStore<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}
