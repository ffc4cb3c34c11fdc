import { parseArgs } from "node:util";
import type { ActionSelection } from "../../../../shared/domain/actions.js";
import { ACTION_KINDS, type ActionKind, HEADLINES, type Headline } from "../../../../shared/domain/codes.js";
import { withForcedProofs } from "../../app/forced-proofs.js";
import { CoreError } from "../../errors/core-error.js";
import { formatPlan } from "../action-support.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliCore } from "../core.js";

export const command: CliCommand = {
  name: "plan",
  summary: "Plan a release or destroy: what would be done, what is skipped and why. Acts on nothing.",
  usage: `Usage: leasekeeper plan [--config FILE] --action release|destroy
         (--lease ID… | --headline H… [--environment ID…] | --untracked CREDENTIAL) [--json]

  --action A            release (the plugin's semantics: pause or delete) or destroy (delete)
  --lease ID            a lease to act on (repeatable)
  --headline H          every lease with this headline: ${HEADLINES.join(", ")} (repeatable)
  --environment ID      with --headline: only these environments (repeatable)
  --untracked NAME      every untracked sandbox the named credential lists (destroy only)
  --json                print the plan as JSON

Prints the plan and its id; run it with "leasekeeper apply --plan ID" before it expires (15 minutes).
Each item that needs its sandbox id typed back is proven first, as the plan dialog does: its workspace
marker is read (never resuming a paused sandbox) and the answer is printed beside it.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        action: { type: "string" },
        lease: { type: "string", multiple: true },
        headline: { type: "string", multiple: true },
        environment: { type: "string", multiple: true },
        untracked: { type: "string" },
        json: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (!ACTION_KINDS.includes(values.action as ActionKind)) {
      throw new CoreError("usage", "bad-arguments", `--action must be one of ${ACTION_KINDS.join(", ")}.`);
    }
    const selection = selectionOf(values);
    const core = await openCliCore(values.config, io);
    try {
      if (core.engine === null)
        throw new CoreError("call", "unavailable", "Guarded actions are not available in this build.");
      const plan = await core.engine.plan({ action: values.action as ActionKind, selection });
      const preview = await withForcedProofs(plan, core.markers);
      io.stdout.write(
        values.json ? `${JSON.stringify(preview, null, 2)}\n` : formatPlan(preview, values.config),
      );
      return EXIT.ok;
    } finally {
      await core.close();
    }
  },
};

function selectionOf(values: {
  lease?: string[];
  headline?: string[];
  environment?: string[];
  untracked?: string;
}): ActionSelection {
  const modes = [values.lease, values.headline, values.untracked].filter((mode) => mode !== undefined);
  if (modes.length !== 1)
    throw new CoreError("usage", "bad-arguments", "Give exactly one of --lease, --headline or --untracked.");
  if (values.environment !== undefined && values.headline === undefined) {
    throw new CoreError(
      "usage",
      "bad-arguments",
      "--environment narrows --headline; use it with --headline.",
    );
  }
  if (values.lease !== undefined) return { kind: "leases", leaseIds: values.lease };
  if (values.untracked !== undefined) return { kind: "untracked", credential: values.untracked };
  const headlines = values.headline ?? [];
  for (const headline of headlines) {
    if (!HEADLINES.includes(headline as Headline)) {
      throw new CoreError(
        "usage",
        "bad-arguments",
        `--headline must be one of ${HEADLINES.join(", ")}; "${headline}" is not.`,
      );
    }
  }
  return {
    kind: "headline",
    headlines: headlines as Headline[],
    ...(values.environment === undefined ? {} : { environmentIds: values.environment }),
  };
}
