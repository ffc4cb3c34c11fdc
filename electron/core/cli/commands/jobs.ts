import { parseArgs } from "node:util";
import { formatJobs } from "../action-support.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliEngine } from "../core.js";

export const command: CliCommand = {
  name: "jobs",
  summary: "List recent action jobs, including interrupted ones that can be resumed.",
  usage: `Usage: leasekeeper jobs [--config FILE] [--json]

  --json   print the jobs (with their items) as JSON`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { config: { type: "string", short: "c" }, json: { type: "boolean", default: false } },
      strict: true,
      allowPositionals: false,
    });
    const engine = await openCliEngine(values.config, io);
    try {
      const jobs = await engine.listJobs();
      io.stdout.write(values.json ? `${JSON.stringify(jobs, null, 2)}\n` : formatJobs(jobs));
      return EXIT.ok;
    } finally {
      await engine.close();
    }
  },
};
