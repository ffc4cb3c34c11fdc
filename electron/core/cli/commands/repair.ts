import { parseArgs } from "node:util";
import { ulid } from "ulid";
import type { LeaseRepair } from "../../../../shared/domain/lease-repair.js";
import type { ActionEngine } from "../../actions/engine.js";
import { currentOperator } from "../../actions/operator.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { CoreError, isCoreError } from "../../errors/core-error.js";
import {
  applyRepairs,
  type ProvenRepair,
  proveAndRepair,
  type RepairApplyOutcome,
  repairAuditRecord,
  repairJson,
  repairSql,
} from "../../repair/index.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";
import { engineOf, openCliCore } from "../core.js";

const FORMATS = ["json", "sql"] as const;

export const command: CliCommand = {
  name: "repair",
  summary:
    "Prove leases' sandboxes and print the metadata repair for Paperclip's database; --apply writes it.",
  usage: `Usage: leasekeeper repair [--config FILE] --lease ID… --format json|sql [--hand-back]
       leasekeeper repair [--config FILE] --lease ID… --apply [--hand-back]

  --lease ID        a lease to repair (repeatable); its sandbox is proven by its workspace marker first
  --format F        sql: one transaction of compare-and-set UPDATEs for psql; json: the same, with each
                    row's metadata, where every field came from, and a parameterised statement
  --hand-back       also set each repaired row to pending_cleanup, so Paperclip's own sweep cleans it up
  --apply           run the same statements in one transaction against the lease's Paperclip database,
                    through the connection string in its source's writeUrlEnv; a row that changed since
                    it was read is left alone and reported; every lease is written to the audit log

Only a row whose sandbox holds its own marker, and whose metadata was lost, nested by an older schema or
names the wrong environment, is repaired; every other row is listed with the reason it was refused.
The output holds the workspace markers: keep it as you would the database. Without --apply nothing is
written anywhere.
Exit code 0 when every lease was repaired; 1 when any was refused, changed or it could not run; 2 on bad
arguments.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        lease: { type: "string", multiple: true },
        format: { type: "string" },
        "hand-back": { type: "boolean", default: false },
        apply: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const leases = values.lease ?? [];
    if (leases.length === 0) throw new CoreError("usage", "bad-arguments", "Give at least one --lease.");
    const format = values.format as (typeof FORMATS)[number] | undefined;
    if (values.apply && format !== undefined)
      throw new CoreError(
        "usage",
        "bad-arguments",
        "--apply writes the repair; it prints no export. Leave out --format.",
      );
    if (!values.apply && (format === undefined || !FORMATS.includes(format)))
      throw new CoreError("usage", "bad-arguments", `--format must be one of ${FORMATS.join(", ")}.`);

    // One core for the proof, the write and its audit: the vault's keys, the team's store for both.
    const core = await openCliCore(values.config, io);
    try {
      await core.inventory.refresh();
      const repairs = await proveAndRepair(
        core.markers,
        leases.map((leaseId) => ({ leaseId })),
        (sourceId) => core.sources.find(sourceId),
      );
      const outcomes = repairs.map((repair) => repair.outcome);
      for (const outcome of outcomes) {
        if (!outcome.ok)
          io.stderr.write(`leasekeeper repair: lease ${outcome.leaseId} not repaired: ${outcome.message}\n`);
      }
      if (values.apply) {
        const engine = await engineOf(core);
        return await apply(repairs, { config: core.config(), io, engine, handBack: values["hand-back"] });
      }
      const options = { handBack: values["hand-back"], generatedAt: new Date().toISOString() };
      io.stdout.write(
        format === "sql"
          ? repairSql(outcomes, options)
          : `${JSON.stringify(repairJson(outcomes, options), null, 2)}\n`,
      );
      return outcomes.every((outcome) => outcome.ok) ? EXIT.ok : EXIT.failed;
    } finally {
      await core.close();
    }
  },
};
async function apply(
  repairs: readonly ProvenRepair[],
  context: { config: LeasekeeperConfig; io: CliIo; engine: ActionEngine; handBack: boolean },
): Promise<number> {
  const { config, io, engine, handBack } = context;
  const bySource = new Map<string, LeaseRepair[]>();
  for (const { outcome } of repairs) {
    if (outcome.ok) bySource.set(outcome.sourceId, [...(bySource.get(outcome.sourceId) ?? []), outcome]);
  }
  // Every write URL is found before anything is written, so a missing one never leaves half a batch.
  const writeUrls = new Map<string, string>();
  for (const sourceId of bySource.keys()) {
    const source = config.sources.find((entry) => entry.id === sourceId);
    if (source?.kind !== "paperclip-db") {
      io.stderr.write(
        `leasekeeper repair: source ${sourceId} is not a Paperclip database; export the repair with --format sql and apply it there. Nothing was written.\n`,
      );
      return EXIT.failed;
    }
    const url = source.writeUrlEnv === null ? undefined : io.env[source.writeUrlEnv]?.trim();
    if (!url) {
      io.stderr.write(
        `leasekeeper repair: source ${sourceId} has ${source.writeUrlEnv === null ? "no writeUrlEnv in the config" : `no connection string in ${source.writeUrlEnv}`}; a repair is applied only through a separately configured write URL. Nothing was written.\n`,
      );
      return EXIT.failed;
    }
    writeUrls.set(sourceId, url);
  }

  const results = new Map<string, RepairApplyOutcome>();
  const failures = new Map<string, string>();
  for (const [sourceId, batch] of bySource) {
    try {
      const { applied, changed } = await applyRepairs(batch, {
        writeUrl: writeUrls.get(sourceId)!,
        handBack,
        timeoutMs: config.requestTimeoutMs,
      });
      for (const repair of applied) results.set(key(repair), "repaired");
      for (const repair of changed) results.set(key(repair), "changed-since-read");
    } catch (error) {
      // Its transaction rolled back; what another source committed is still audited below.
      if (!isCoreError(error, "repair")) throw error;
      for (const repair of batch) {
        results.set(key(repair), "failed");
        failures.set(key(repair), error.message);
      }
    }
  }

  // Into the configured store's audit log (the team's when there is one), before anything is reported.
  const runId = ulid();
  const at = new Date().toISOString();
  const operator = currentOperator(config.operator);
  await engine.recordAudit(
    repairs.map((repair) =>
      repairAuditRecord({
        runId,
        at,
        operator,
        repair,
        outcome: results.get(key(repair.outcome)) ?? "refused",
        handBack,
        failure: failures.get(key(repair.outcome)) ?? null,
      }),
    ),
  );

  for (const { outcome } of repairs) {
    const result = results.get(key(outcome)) ?? "refused";
    if (result === "repaired") io.stdout.write(`lease ${outcome.leaseId}  repaired\n`);
    if (result === "changed-since-read")
      io.stdout.write(
        `lease ${outcome.leaseId}  not repaired: the row changed after it was read (UPDATE 0)\n`,
      );
    if (result === "refused") io.stdout.write(`lease ${outcome.leaseId}  refused\n`);
    if (result === "failed")
      io.stdout.write(`lease ${outcome.leaseId}  not repaired: ${failures.get(key(outcome))}\n`);
  }
  return [...results.values()].length === repairs.length &&
    [...results.values()].every((result) => result === "repaired")
    ? EXIT.ok
    : EXIT.failed;
}

const key = (repair: { sourceId: string; leaseId: string }) => `${repair.sourceId}\u0000${repair.leaseId}`;
