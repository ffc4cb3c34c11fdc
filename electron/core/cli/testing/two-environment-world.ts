import path from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type Simulator, startSimulator } from "../../../../simulator/index.js";
import {
  type BoardKey,
  type PaperclipStandIn,
  startPaperclip,
} from "../../../../simulator/paperclip/index.js";
import {
  COMPANY,
  environment,
  leaseRow,
  SECRET_KEY,
  tempDir,
  writeJson,
} from "../../../../test/fixtures/leasekeeper.js";
import { CONFIG_FILE_NAME } from "../../config/load.js";

/** The id of "CreateOS second"; "CreateOS main" is the fixtures' `ENVIRONMENT`. */
export const SECOND = "77777777-7777-4777-8777-777777777777";

/**
 * A terminal's world of two environments: CreateOS, where the account whose key is `SECRET_KEY` runs
 * sb-main and sb-second, and, when asked for, Paperclip listing "CreateOS main" and "CreateOS second"
 * with one lease each, read with `boardKeys`. Each test runs the CLI from a fresh directory.
 */
export interface TwoEnvironmentWorld {
  readonly sim: Simulator;
  readonly paperclip: PaperclipStandIn;
  /**
   * A fresh directory, removed after the test, holding a config that reads `sources` and lists the
   * account with its key in `LK_KEY`; the data directory is `data` in it.
   */
  configDir(sources: unknown[]): Promise<string>;
}

/**
 * Starts the world before the file's tests and stops it after them (both sandboxes `running` unless
 * `sandboxStatus` says otherwise); Paperclip's faults are cleared
 * after each test. Call it at the top of the file; the servers are there once its `beforeAll`s have run.
 */
export function twoEnvironmentWorld(
  options: { paperclip?: { boardKeys: BoardKey[] }; sandboxStatus?: "running" | "paused" } = {},
): TwoEnvironmentWorld {
  let sim: Simulator | undefined;
  let paperclip: PaperclipStandIn | undefined;
  let cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    sim = await startSimulator({
      fleet: {
        accounts: [
          {
            apiKey: SECRET_KEY,
            sandboxes: ["sb-main", "sb-second"].map((id) => ({
              id,
              status: options.sandboxStatus ?? "running",
              shape: "s-1vcpu-1gb",
            })),
          },
        ],
      },
      rateLimitPerMinute: 0,
    });
    if (options.paperclip === undefined) return;
    paperclip = await startPaperclip({
      world: {
        environmentShape: "instance-scoped",
        companies: [{ id: COMPANY, name: "Acme", status: "active" }],
        environments: twoEnvironments(sim.url),
        leases: [leaseRow(sim.url, "sb-main"), secondLease(sim.url, "sb-second", COMPANY)],
      },
      auth: { mode: "authenticated", boardKeys: options.paperclip.boardKeys },
    });
  }, 60_000);

  afterAll(async () => {
    await paperclip?.stop();
    await sim?.stop();
  });

  afterEach(async () => {
    paperclip?.setFaults([]);
    for (const cleanup of cleanups) await cleanup();
    cleanups = [];
  });

  const started = () => {
    if (sim === undefined) throw new Error("the test file's CreateOS simulator has not started");
    return sim;
  };
  return {
    get sim() {
      return started();
    },
    get paperclip() {
      if (paperclip === undefined)
        throw new Error("the test file's Paperclip has not started, or was not asked for");
      return paperclip;
    },
    async configDir(sources) {
      const { dir, cleanup } = await tempDir();
      cleanups.push(cleanup);
      await writeJson(path.join(dir, CONFIG_FILE_NAME), {
        sources,
        credentials: [{ name: "account", origin: started().url, apiKeyEnv: "LK_KEY" }],
        dataDir: "data",
      });
      return dir;
    },
  };
}

/** "CreateOS main" and "CreateOS second", both on the simulator at `apiUrl`. */
export function twoEnvironments(apiUrl: string): ReturnType<typeof environment>[] {
  const config = { provider: "createos", apiUrl, shape: "s-1vcpu-1gb" };
  return [environment({ config }), environment({ id: SECOND, name: "CreateOS second", config })];
}

/** A lease of `sandboxId` in "CreateOS second", its metadata naming `company` when one is given. */
export function secondLease(
  apiUrl: string,
  sandboxId: string,
  company?: string,
): ReturnType<typeof leaseRow> {
  return leaseRow(apiUrl, sandboxId, {
    environmentId: SECOND,
    metadata: {
      provider: "createos",
      apiUrl,
      ...(company === undefined ? {} : { companyId: company }),
      environmentId: SECOND,
    },
  });
}

/** A config's source reading Paperclip at `url` with the board key in `PC_TOKEN`. */
export function paperclipSource(url: string) {
  return { kind: "paperclip", name: "paperclip", url, tokenEnv: "PC_TOKEN" };
}
