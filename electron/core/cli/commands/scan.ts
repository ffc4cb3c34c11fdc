import { parseArgs } from "node:util";
import { encodeInventory } from "../../../../shared/contract/index.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import type { Core } from "../../compose/index.js";
import { CONFIG_FILE_NAME } from "../../config/load.js";
import { CoreError } from "../../errors/core-error.js";
import { knowsEnvironment, scanReport } from "../../inventory/report.js";
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
      await core.inventory.refresh();
      const inventory = await core.inventory.full();
      if (values.environment !== undefined && !knowsEnvironment(inventory, values.environment)) {
        io.stderr.write(`leasekeeper scan: no source lists an environment "${values.environment}".\n`);
        return EXIT.failed;
      }
      // The scan stands without the store: a save that fails costs "new since last scan" (the core says
      // so on stderr), not the result.
      await core.inventory.saved().catch(() => undefined);
      const database = core.stores.database;
      const kept = database === null ? null : new InventoryStore(database).loadLast();
      const newSinceLastScan =
        kept?.inventory.generatedAt === inventory.generatedAt ? kept.newSinceLastScan : [];
      // With a store the team shares, what the others' apps start from, as the app's own scan keeps it.
      await keepForTheTeam(core, io, inventory);
      await core.markers.loaded();
      // How a source read (a database's table shape) is for the person at the terminal, beside the result.
      for (const note of inventory.sourceNotes ?? []) {
        io.stderr.write(`leasekeeper scan: ${note.source}: ${note.message}.\n`);
      }
      const report = scanReport(inventory, {
        environmentId: values.environment,
        newSinceLastScan,
        proofFor: (subject) => core.markers.proofFor(subject),
      });
      io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatScanTable(report));
      return EXIT.ok;
    } finally {
      await core.close();
    }
  },
};

/** Like the local save, the scan stands without the shared store: a failure is one line, not the result. */
async function keepForTheTeam(core: Core, io: CliIo, inventory: Inventory): Promise<void> {
  const redactor = core.log.redactor;
  try {
    const redacted = redactor.redactDeep(inventory);
    await keepScanInSharedStore(core.config(), io.env, {
      inventory: redacted,
      view: redactor.redactDeep(encodeInventory(redacted, { leaveOutHistory: true })),
    });
  } catch (error) {
    const message =
      error instanceof CoreError ? error.message.replace(/\.$/, "") : "the shared store could not be written";
    io.stderr.write(`leasekeeper scan: the result was not kept in the shared store (${message}).\n`);
  }
}
