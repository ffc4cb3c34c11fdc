import { parseArgs } from "node:util";
import { formatJobs } from "../action-support.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliEngine } from "../core.js";

/** The newest jobs listed; every interrupted one is listed as well, however old. */
const JOBS_LISTED = 100;

export const command: CliCommand = {
  name: "jobs",
  summary: "List recent action jobs, including interrupted ones that can be resumed.",
  usage: `Usage: leasekeeper jobs [--config FILE] [--json]

  --json   print the jobs (with their items) as JSON: { jobs, cut }

Lists the newest ${JOBS_LISTED} jobs and every interrupted one, however old; when older jobs are left
out, it says so (cut: true).`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { config: { type: "string", short: "c" }, json: { type: "boolean", default: false } },
      strict: true,
      allowPositionals: false,
    });
    const engine = await openCliEngine(values.config, io);
    try {
      const { jobs, cut } = await engine.listJobs({ limit: JOBS_LISTED });
      // A cut list says so: its length is not how many jobs there are.
      const more = cut
        ? `Only the newest ${JOBS_LISTED} jobs are listed, and every interrupted one; older jobs are recorded and not listed.\n`
        : "";
      io.stdout.write(values.json ? `${JSON.stringify({ jobs, cut }, null, 2)}\n` : formatJobs(jobs) + more);
      return EXIT.ok;
    } finally {
      await engine.close();
    }
  },
};
