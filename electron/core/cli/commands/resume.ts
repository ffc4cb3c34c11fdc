import { parseArgs } from "node:util";
import { CoreError } from "../../errors/core-error.js";
import { followJob, jobExitCode } from "../action-support.js";
import type { CliCommand } from "../command.js";
import { openCliEngine } from "../core.js";

export const command: CliCommand = {
  name: "resume",
  summary:
    "Finish an interrupted job: items found running are re-checked at CreateOS before anything is sent.",
  usage: `Usage: leasekeeper resume [--config FILE] --job ID [--json]

  --job ID   the interrupted job (see "leasekeeper jobs")
  --json     print the finished job as JSON

Ctrl-C stops the job before its next item. Exit code 0 when every item was done or skipped; 1 when
any item failed, ended unconfirmed (CreateOS accepted it, and was not seen to have done it), was
cancelled before it was sent (Ctrl-C) or was left unfinished by an interrupted job; 2 on bad arguments.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        job: { type: "string" },
        json: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.job === undefined) throw new CoreError("usage", "bad-arguments", "--job is required.");
    const engine = await openCliEngine(values.config, io);
    try {
      const done = await followJob(engine, await engine.resume(values.job), io, values.json);
      return jobExitCode(done);
    } finally {
      await engine.close();
    }
  },
};
