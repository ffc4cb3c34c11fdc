import { parseArgs } from "node:util";
import { openCliMarkers } from "../../markers/cli.js";
import { repairJson, repairLeases, repairSql } from "../../repair/index.js";
import { type CliCommand, EXIT, UsageError } from "../command.js";

const FORMATS = ["json", "sql"] as const;

export const command: CliCommand = {
  name: "repair",
  summary: "Prove leases' sandboxes and print the metadata repair for Paperclip's database. Writes nothing.",
  usage: `Usage: leasekeeper repair [--config FILE] --lease ID… --format json|sql [--hand-back]

  --lease ID        a lease to repair (repeatable); its sandbox is proven by its workspace marker first
  --format F        sql: one transaction of compare-and-set UPDATEs for psql; json: the same, with each
                    row's metadata, where every field came from, and a parameterised statement
  --hand-back       also set each repaired row to pending_cleanup, so Paperclip's own sweep cleans it up

Only a row whose sandbox holds its own marker, and whose metadata was lost, nested by an older schema or
names the wrong environment, is repaired; every other row is listed with the reason it was refused.
The output holds the workspace markers: keep it as you would the database. Nothing is applied.
Exit code 0 when every lease was repaired; 1 when any was refused or it could not run; 2 on bad arguments.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        lease: { type: "string", multiple: true },
        format: { type: "string" },
        "hand-back": { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const leases = values.lease ?? [];
    if (leases.length === 0) throw new UsageError("Give at least one --lease.");
    const format = values.format as (typeof FORMATS)[number];
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}.`);

    const { markers } = await openCliMarkers(values.config, io);
    const outcomes = await repairLeases(
      markers,
      leases.map((leaseId) => ({ leaseId })),
    );
    const options = { handBack: values["hand-back"], generatedAt: new Date().toISOString() };
    io.stdout.write(
      format === "sql"
        ? repairSql(outcomes, options)
        : `${JSON.stringify(repairJson(outcomes, options), null, 2)}\n`,
    );
    for (const outcome of outcomes) {
      if (!outcome.ok)
        io.stderr.write(`leasekeeper repair: lease ${outcome.leaseId} not repaired: ${outcome.message}\n`);
    }
    return outcomes.every((outcome) => outcome.ok) ? EXIT.ok : EXIT.failed;
  },
};
