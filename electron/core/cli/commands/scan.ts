import { parseArgs } from "node:util";
import type { InventoryView } from "../../../../shared/contract/index.js";
import { decodeJson } from "../../../../shared/contract/json-bytes.js";
import { HEADLINES, QUIET_HEADLINES } from "../../../../shared/domain/codes.js";
import type { ProofSubject } from "../../../../shared/domain/marker-proof.js";
import type { Core } from "../../compose/index.js";
import { CONFIG_FILE_NAME } from "../../config/load.js";
import { CoreError } from "../../errors/core-error.js";
import {
  knowsEnvironment,
  reportedLease,
  type ScanReport,
  scanReport,
  unreadGap,
} from "../../inventory/report.js";
import { writeReportJson } from "../../inventory/report-json.js";
import { InventoryStore } from "../../store/index.js";
import { keepScanInSharedStore } from "../../store/postgres/keep-scan.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";
import { openCliCore } from "../core.js";
import { formatScanTable } from "../scan-table.js";

export const command: CliCommand = {
  name: "scan",
  summary: "Read every lease source, list every CreateOS account once, and judge every lease.",
  usage: `Usage: leasekeeper scan [--config FILE] [--environment ID] [--json]

  --config FILE       leasekeeper.config.json to use (default: ./${CONFIG_FILE_NAME})
  --environment ID    show only this environment's leases
  --json              print the scan as JSON (a stable interface for scripts)

Exit code 0 when the scan ran, whatever it found; 1 when it could not run; 2 on bad arguments.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        environment: { type: "string", short: "e" },
        json: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    // The core's own pipeline, as the app scans: the vault's keys, the redacting writer, the team's store.
    const core = await openCliCore(values.config, io, { shareInventory: false });
    try {
      // Its failure is its one line, a source's words that the runner takes the keys out of.
      await core.inventory.refresh();
      // Read from the store a page at a time: a report of a million rows is written as it is read.
      const { inventory, counts, pages } = await core.inventory.rowPages(values.environment);
      const inScope = Object.values(counts).reduce((sum, count) => sum + count, 0);
      if (
        values.environment !== undefined &&
        inScope === 0 &&
        !knowsEnvironment(inventory, values.environment)
      ) {
        // A source may list an environment whose leases it could not read (a config Paperclip hides
        // from a key that is not an instance admin's): that is said, not that nothing lists it.
        const unread = unreadGap(inventory, values.environment);
        io.stderr.write(
          unread === undefined
            ? `leasekeeper scan: no source lists an environment "${values.environment}".\n`
            : `leasekeeper scan: ${unread.source} lists an environment "${values.environment}", but its leases could not be read: ${unread.message.replace(/\.$/, "")}.\n`,
        );
        return EXIT.failed;
      }
      // The scan stands without the store: a save that fails costs "new since last scan" (the core says
      // so on stderr), not the result.
      await core.inventory.saved().catch(() => undefined);
      const database = core.stores.database;
      const kept = database === null ? null : new InventoryStore(database).rowsOf.head();
      const fresh = new Set(
        kept?.inventory.generatedAt === inventory.generatedAt ? kept.newSinceLastScan : [],
      );
      // With a store the team shares, what the others' apps start from, as the app's own scan keeps it.
      if (core.config().store?.kind === "postgres") await keepForTheTeam(core, io);
      await core.markers.loaded();
      // How a source read (a database's table shape) is for the person at the terminal, beside the result.
      for (const note of inventory.sourceNotes ?? []) {
        io.stderr.write(`leasekeeper scan: ${note.source}: ${note.message}.\n`);
      }
      const options = { proofFor: (subject: ProofSubject) => core.markers.proofFor(subject) };
      const {
        leases: _none,
        newSinceLastScan: _fromRows,
        ...scanWide
      } = scanReport(inventory, {
        environmentId: values.environment,
        ...options,
      });
      const attention = HEADLINES.filter((headline) => !QUIET_HEADLINES.includes(headline)).reduce(
        (sum, headline) => sum + counts[headline],
        0,
      );
      const report = { ...scanWide, counts: { ...counts, attention } };
      const reported = mapPages(pages, (row) => reportedLease(row, fresh, options));
      if (values.json) {
        await writeReportJson((text) => io.stdout.write(text), report, reported);
      } else {
        // A table is read by a person: its rows are gathered, as it lays them out by their widths.
        const leases: ScanReport["leases"] = [];
        for await (const page of reported) leases.push(...page);
        const newSinceLastScan = leases
          .filter((lease) => lease.newSinceLastScan)
          .map((lease) => lease.leaseId);
        io.stdout.write(formatScanTable({ ...report, leases, newSinceLastScan }));
      }
      return EXIT.ok;
    } finally {
      await core.close();
    }
  },
};

async function* mapPages<T, U>(
  pages: AsyncIterable<readonly T[]>,
  each: (item: T) => U,
): AsyncGenerator<U[]> {
  for await (const page of pages) yield page.map(each);
}

/**
 * Like the local save, the scan stands without the shared store: a failure is one line, not the result.
 * What is kept is what the app's worker keeps after its own scan: the view it holds, and every stored
 * row, read from the worker a page at a time as they are sent.
 */
async function keepForTheTeam(core: Core, io: CliIo): Promise<void> {
  const redactor = core.log.redactor;
  try {
    // Decoded here, once per `leasekeeper scan`: the shared store keeps the view as an object.
    const view = redactor.redactDeep(decodeJson<InventoryView>((await core.inventory.view({})).bytes));
    const { inventory, pages } = await core.inventory.rowPages();
    await keepScanInSharedStore(core.config(), io.env, {
      inventory: redactor.redactDeep(inventory),
      pages: mapPages(pages, (row) => redactor.redactDeep(row)),
      view,
    });
  } catch (error) {
    const message =
      error instanceof CoreError ? error.message.replace(/\.$/, "") : "the shared store could not be written";
    io.stderr.write(`leasekeeper scan: the result was not kept in the shared store (${message}).\n`);
  }
}
