import { parseArgs } from "node:util";
import type { ActionSelection } from "../../../../shared/domain/actions.js";
import { ACTION_KINDS, type ActionKind, HEADLINES, type Headline } from "../../../../shared/domain/codes.js";
import { withForcedProofs } from "../../app/forced-proofs.js";
import { CoreError } from "../../errors/core-error.js";
import { formatPlan } from "../action-support.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliCore, withScanReason } from "../core.js";
import { notReadFor, notReadLines } from "../plan-not-read.js";

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
With --untracked, an account CreateOS could not list is named, and the exit code is 1: its untracked
sandboxes are unknown, not none. Likewise with --headline (or --lease, for an id not found), each part of
a source that could not be read is named, and the exit code is 1: its leases are unknown, not none.
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
      if (selection.kind === "untracked") knownCredential(selection.credential, core.config().credentials);
      const { plan } = await core.engine
        .plan({ action: values.action as ActionKind, selection })
        .catch((error: unknown) => Promise.reject(withScanReason(core, error)));
      const preview = await withForcedProofs(plan, core.markers);
      // An account whose listing failed has untracked sandboxes nobody can see: a plan of none of them
      // is not "nothing to do", and says so.
      const notListed =
        selection.kind === "untracked"
          ? (core.inventory.summary?.origins ?? [])
              .filter((origin) => origin.credential === selection.credential && !origin.ok)
              .map(({ origin, credential, reason, httpStatus }) => ({
                origin,
                credential,
                reason,
                httpStatus,
              }))
          : [];
      // A part of a source that could not be read may hold rows this selection picks: the plan is of the
      // rows read, and names what was not. Gaps are a source's words, so keys are taken out.
      const gaps = core.log.redactor.redactDeep(
        notReadFor(selection, plan, core.inventory.summary?.gaps ?? []),
      );
      io.stdout.write(
        values.json
          ? `${JSON.stringify(selection.kind === "untracked" ? { ...preview, notListed } : { ...preview, gaps }, null, 2)}\n`
          : `${formatPlan(preview, values.config)}${notListed.map(notListedLine).join("")}${notReadLines(gaps)}`,
      );
      return notListed.length > 0 || gaps.length > 0 ? EXIT.failed : EXIT.ok;
    } finally {
      await core.close();
    }
  },
};

/** `--untracked` names a configured credential; any other name would plan nothing, silently. */
function knownCredential(name: string, credentials: readonly { name: string }[]): void {
  if (credentials.some((credential) => credential.name === name)) return;
  const names = credentials.map((credential) => `"${credential.name}"`).join(", ");
  throw new CoreError(
    "usage",
    "bad-arguments",
    `No credential is named "${name}"; ${names === "" ? "the config names none" : `the config names ${names}`}.`,
  );
}

function notListedLine(origin: {
  origin: string;
  credential: string;
  reason: string | null;
  httpStatus: number | null;
}): string {
  const why = [origin.reason, origin.httpStatus === null ? null : `HTTP ${origin.httpStatus}`]
    .filter((part) => part !== null)
    .join(", ");
  return `CreateOS could not be listed with ${origin.credential} at ${origin.origin}${why === "" ? "" : ` (${why})`}: its untracked sandboxes there are unknown, and none of them is in this plan.\n`;
}

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
