import { parseArgs } from "node:util";
import { CoreError } from "../../errors/core-error.js";
import { followJob, jobExitCode } from "../action-support.js";
import type { CliCommand } from "../command.js";
import { openCliEngine } from "../core.js";

export const command: CliCommand = {
  name: "apply",
  summary: "Run a plan: re-check each item, act, verify, and write every outcome to the audit log.",
  usage: `Usage: leasekeeper apply [--config FILE] --plan ID [--confirm SANDBOX_ID…] [--confirm-phrase TEXT]
                         [--confirm-count "destroy N"] [--override-in-use] [--json]

  --plan ID             the plan to run (from "leasekeeper plan")
  --confirm ID          type back the id of a sandbox to force-destroy (repeatable); a forced item
                        whose id is not given is skipped, not done
  --confirm-phrase T    the plan's confirmation phrase, confirming every forced item at once
  --confirm-count T     the count typed back, for a plan that destroys an ok sandbox or many at once
                        ("destroy 248": the number of sandboxes it will act on); without it such a
                        plan is refused and nothing is done
  --override-in-use     also act on sandboxes in use by a run or held by another live lease, or that
                        a lease in a part of the sources not read may name
  --json                print the finished job as JSON instead of a line per item

Ctrl-C stops the job before its next item. Exit code 0 when every item was done or skipped; 1 when
any item failed, ended unconfirmed (CreateOS accepted it, and was not seen to have done it), was
cancelled before it was sent (Ctrl-C) or was left unfinished by an interrupted job; 2 on bad arguments.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        plan: { type: "string" },
        confirm: { type: "string", multiple: true },
        "confirm-phrase": { type: "string" },
        "confirm-count": { type: "string" },
        "override-in-use": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.plan === undefined) throw new CoreError("usage", "bad-arguments", "--plan is required.");
    const engine = await openCliEngine(values.config, io);
    try {
      const job = await engine.execute({
        planId: values.plan,
        confirmSandboxIds: values.confirm ?? [],
        override: values["override-in-use"],
        ...(values["confirm-phrase"] === undefined ? {} : { confirmationPhrase: values["confirm-phrase"] }),
        ...(values["confirm-count"] === undefined ? {} : { typedCount: values["confirm-count"] }),
      });
      const done = await followJob(engine, job, io, values.json);
      return jobExitCode(done);
    } finally {
      await engine.close();
    }
  },
};
