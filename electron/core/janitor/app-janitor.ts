import {
  type JanitorPlan,
  type JanitorRun,
  type JanitorStatus,
  janitorActPhrase,
} from "../../../shared/contract/janitor.js";
import type { Policy } from "../../../shared/domain/janitor/index.js";
import { CoreError } from "../errors/core-error.js";
import { type JanitorDeps, planPolicy, runPass } from "./pass.js";
import { readLastPass } from "./pass-state.js";
import { planUnread } from "./plan-unread.js";
import { policyDigest } from "./policy-digest.js";
import { readPolicyFile } from "./policy-file.js";

/**
 * The janitor as the app runs it: the policy file the config names (never a path from the renderer),
 * the last pass kept in the data directory (by `watch` or by the app, through the same `runPass`), what a
 * pass would do next over the inventory the core holds, and one pass on request: a dry run, or an acting
 * one only with the policy's phrase typed back over the rules its plan showed. One pass at a time per core.
 */
export interface AppJanitorDeps
  extends Omit<JanitorDeps, "engine" | "dataDir" | "redact" | "webhookTimeoutMs" | "now"> {
  /** Null where guarded actions are not wired: plans and passes then answer `unavailable`. */
  engine: JanitorDeps["engine"] | null;
  config: () => { dataDir: string; policyFile?: string | undefined };
  redact(text: string): string;
  now?: () => Date;
}

export const JANITOR_UNAVAILABLE = "The janitor needs the guarded actions, which are not available here.";
const NO_POLICY =
  "No policy file is configured. Name one in Settings (or `policyFile` in the config) to see what it would do.";
const MAX_PROBLEMS = 20;
const POLICY_CHANGED =
  "The policy file changed since its plan was shown: look at the new plan before acting.";

type Reading =
  | { state: "no-policy"; message: string }
  | { state: "invalid"; policyFile: string; problems: string[] }
  | { state: "read"; policyFile: string; policy: Policy };

export class AppJanitor {
  #running: Promise<unknown> | null = null;

  constructor(private readonly deps: AppJanitorDeps) {}

  async status(): Promise<JanitorStatus> {
    const config = this.deps.config();
    return { policyFile: config.policyFile ?? null, lastPass: await readLastPass(config.dataDir) };
  }

  async plan(): Promise<JanitorPlan> {
    const reading = await this.#read();
    if (reading.state !== "read") return reading;
    const now = (this.deps.now ?? (() => new Date()))();
    const plan = await planPolicy(
      { ...this.deps, engine: this.#engine(), dataDir: this.deps.config().dataDir },
      reading.policy,
      now,
    );
    return {
      state: "planned",
      policyFile: reading.policyFile,
      actPhrase: janitorActPhrase(reading.policy.operator),
      policyDigest: policyDigest(reading.policy),
      plan,
      unread: planUnread(await this.deps.inventory.view({}), plan, this.deps.inventory.summary),
    };
  }

  async run(request: {
    act?: boolean | undefined;
    confirm?: string | undefined;
    policyDigest?: string | undefined;
  }): Promise<JanitorRun> {
    const reading = await this.#read();
    if (reading.state !== "read") return reading;
    const act = request.act === true;
    const phrase = janitorActPhrase(reading.policy.operator);
    if (act && (request.confirm ?? "").trim() !== phrase) {
      throw new CoreError("call", "refused", `An acting pass runs only with “${phrase}” typed back.`);
    }
    // The phrase names only the operator: the digest is what ties it to the rules the plan showed. The
    // pass is then given this very reading, so nothing read later can stand in for what was confirmed.
    if (act && request.policyDigest !== policyDigest(reading.policy)) {
      throw new CoreError("call", "conflict", POLICY_CHANGED);
    }
    if (this.#running !== null)
      throw new CoreError("call", "conflict", "A pass of the policy is running already; wait for it.");
    const engine = this.#engine();
    const webhook = reading.policy.webhook?.url;
    const pass = runPass(
      {
        engine,
        quarantine: this.deps.quarantine,
        inventory: this.deps.inventory,
        markers: this.deps.markers,
        taken: this.deps.taken,
        dataDir: this.deps.config().dataDir,
        // The core's redactor knows the keys; the webhook's URL is this policy's own.
        redact: (text) => {
          const redacted = this.deps.redact(text);
          return webhook === undefined ? redacted : redacted.split(webhook).join("[webhook URL]");
        },
        metrics: this.deps.metrics,
        ...(this.deps.fetch === undefined ? {} : { fetch: this.deps.fetch }),
        ...(this.deps.now === undefined ? {} : { now: this.deps.now }),
      },
      {
        policy: reading.policy,
        policyFile: reading.policyFile,
        act,
        stopped: () => null,
        signal: new AbortController().signal,
      },
    );
    this.#running = pass;
    try {
      return { state: "ran", report: await pass };
    } finally {
      this.#running = null;
    }
  }

  #engine(): JanitorDeps["engine"] {
    if (this.deps.engine === null) throw new CoreError("call", "unavailable", JANITOR_UNAVAILABLE);
    return this.deps.engine;
  }

  async #read(): Promise<Reading> {
    const policyFile = this.deps.config().policyFile;
    if (policyFile === undefined) return { state: "no-policy", message: NO_POLICY };
    const reading = await readPolicyFile(policyFile);
    if (!reading.ok) {
      return {
        state: "invalid",
        policyFile,
        problems: reading.problems.slice(0, MAX_PROBLEMS).map((problem) => problem.text),
      };
    }
    return { state: "read", policyFile, policy: reading.policy };
  }
}
