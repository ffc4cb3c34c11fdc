import path from "node:path";
import { type PassReport, type Policy, PolicySchema } from "../../../../shared/domain/janitor/index.js";
import { FAST_OPTIONS, type World } from "../../actions/testing/world.js";
import { memoryLogger } from "../../app/log.js";
import { type Core, openCore } from "../../compose/index.js";
import { runPass } from "../pass.js";

/** A policy of one rule, run as the night janitor its passes are audited as. */
export function nightJanitorPolicy(
  rule: Record<string, unknown>,
  caps?: { perPass: number; perHour: number },
): Policy {
  return PolicySchema.parse({
    version: 1,
    operator: "night-janitor",
    rules: [rule],
    ...(caps === undefined ? {} : { caps }),
  });
}

/** Where a pass is run from: a config file, the environment it reads its keys from, the policy's file. */
export interface PassSite {
  configPath: string;
  env: NodeJS.ProcessEnv;
  policyFile: string;
}

/** A world's own config and data directory, with its policy file beside them. */
export function worldSite(world: World): PassSite {
  return { configPath: world.configFile, env: world.env, policyFile: path.join(world.dir, "policy.json") };
}

/** A core as the watcher opens one for a policy: as its operator, retrying CreateOS quickly. */
export function openJanitorCore(site: PassSite, policy: Policy): Promise<Core> {
  return openCore({
    configPath: site.configPath,
    mode: "cli",
    version: "test",
    env: site.env,
    log: memoryLogger(),
    autoRefresh: false,
    operator: policy.operator,
    client: { retry: { baseDelayMs: 20, maxDelayMs: 200 } },
    actionOptions: FAST_OPTIONS,
  });
}

export interface PassOptions {
  resume?: boolean;
  /** Runs beside the pass; `stop` stops it as a signal to the watcher would. */
  during?: (stop: () => void) => Promise<void>;
}

/** One acting pass of the policy in an open core; returns its report. */
export async function passIn(
  core: Core,
  site: PassSite,
  policy: Policy,
  options: PassOptions = {},
): Promise<PassReport> {
  const abort = new AbortController();
  const running = runPass(
    {
      engine: core.engine!,
      quarantine: core.quarantine,
      inventory: core.inventory,
      markers: core.markers,
      taken: core.stores.janitorTaken,
      dataDir: core.config().dataDir,
      redact: (text) => text,
    },
    {
      policy,
      policyFile: site.policyFile,
      act: true,
      stopped: () => (abort.signal.aborted ? "signal" : null),
      signal: abort.signal,
      ...(options.resume === undefined ? {} : { resume: options.resume }),
    },
  );
  await options.during?.(() => abort.abort());
  return await running;
}

/** One pass of the policy in a core of its own, as one start of a watcher. */
export async function passInItsOwnCore(
  site: PassSite,
  policy: Policy,
  options: PassOptions = {},
): Promise<PassReport> {
  const core = await openJanitorCore(site, policy);
  try {
    return await passIn(core, site, policy, options);
  } finally {
    await core.close();
  }
}

/** Two passes of the policy in one core, one after the other; `between` runs once the first is over. */
export async function twoPassesInOneCore(
  site: PassSite,
  policy: Policy,
  between: (first: PassReport) => Promise<void>,
): Promise<[PassReport, PassReport]> {
  const core = await openJanitorCore(site, policy);
  try {
    const first = await passIn(core, site, policy);
    await between(first);
    return [first, await passIn(core, site, policy)];
  } finally {
    await core.close();
  }
}
