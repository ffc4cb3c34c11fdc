import { parseArgs } from "node:util";
import { AUDIT_ACTIONS, type AuditAction } from "../../../../shared/domain/actions.js";
import { writeAuditExport } from "../../actions/audit/write-export.js";
import { CoreError } from "../../errors/core-error.js";
import { AUDIT_OUTCOMES } from "../audit-outcomes.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliEngine } from "../core.js";

/** The most entries the readable listing holds (the audit query's own ceiling); an export holds every one. */
const LISTING_LIMIT = 10_000;

export const command: CliCommand = {
  name: "audit",
  summary: "Show or export the audit log of every plan and every action item.",
  usage: `Usage: leasekeeper audit [--config FILE] [--since ISO] [--until ISO] [--environment ID]
                         [--action release|destroy|repair|quarantine] [--outcome O] [--json|--csv]

  --since, --until   ISO 8601 times bounding the entries
  --environment ID   only this environment's items
  --action A         only release, destroy, repair or quarantine
  --outcome O        only this outcome: ${AUDIT_OUTCOMES.join(", ")}
  --json | --csv     export every matching entry (CSV is RFC 4180, formula cells neutralized)`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        since: { type: "string" },
        until: { type: "string" },
        environment: { type: "string" },
        action: { type: "string" },
        outcome: { type: "string" },
        json: { type: "boolean", default: false },
        csv: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.json && values.csv)
      throw new CoreError("usage", "bad-arguments", "Choose one of --json and --csv.");
    if (values.action !== undefined && !AUDIT_ACTIONS.includes(values.action as AuditAction)) {
      throw new CoreError("usage", "bad-arguments", `--action must be one of ${AUDIT_ACTIONS.join(", ")}.`);
    }
    // An outcome the log never records would match nothing, and "No audit entries match." would read as
    // nothing having happened.
    if (values.outcome !== undefined && !AUDIT_OUTCOMES.includes(values.outcome)) {
      throw new CoreError(
        "usage",
        "bad-arguments",
        `--outcome must be one of ${AUDIT_OUTCOMES.join(", ")}; "${values.outcome}" is not.`,
      );
    }
    for (const [flag, value] of [
      ["--since", values.since],
      ["--until", values.until],
    ] as const) {
      if (value !== undefined && Number.isNaN(Date.parse(value)))
        throw new CoreError("usage", "bad-arguments", `${flag} must be an ISO time.`);
    }
    const query = {
      ...(values.since === undefined ? {} : { since: new Date(values.since).toISOString() }),
      ...(values.until === undefined ? {} : { until: new Date(values.until).toISOString() }),
      ...(values.environment === undefined ? {} : { environmentId: values.environment }),
      ...(values.action === undefined ? {} : { action: values.action as AuditAction }),
      ...(values.outcome === undefined ? {} : { outcome: values.outcome }),
    };
    const engine = await openCliEngine(values.config, io);
    try {
      if (values.json || values.csv) {
        // Asked for no limit, the file holds every entry that matches: it is never cut. So it is written
        // as it is read, a page at a time: months of a janitor's passes are never held whole.
        await writeAuditExport(engine.auditPages(query), values.csv ? "csv" : "json", io.stdout);
        return EXIT.ok;
      }
      const { entries, cut } = await engine.queryAudit({ ...query, limit: LISTING_LIMIT });
      if (entries.length === 0) io.stdout.write("No audit entries match.\n");
      for (const entry of entries) {
        const target =
          entry.kind === "plan"
            ? `plan ${entry.planId}`
            : `${entry.sandboxId ?? "-"} (lease ${entry.leaseId ?? "-"})`;
        const status = entry.httpStatus === null ? "" : ` HTTP ${entry.httpStatus}`;
        const why = entry.reason ? ` [${entry.reason}]` : "";
        const override = entry.override ? " override" : "";
        io.stdout.write(
          `${entry.at}  ${entry.operator}@${entry.host}  ${entry.action} ${target}  ${entry.outcome}${status}${why}${override}  ${entry.message ?? ""}\n`,
        );
      }
      // The listing keeps the newest entries: when an older one matches too, it is not the whole of what
      // matches. A listing of exactly its limit may be the whole, and is not said to be cut.
      if (cut) {
        io.stdout.write(
          `These are the newest ${LISTING_LIMIT.toLocaleString("en-US")} matching entries, the most a listing shows; older ones may match too: narrow --since and --until, or export them all with --json or --csv.\n`,
        );
      }
      return EXIT.ok;
    } finally {
      await engine.close();
    }
  },
};
