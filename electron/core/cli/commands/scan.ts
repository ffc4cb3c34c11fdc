import path from "node:path";
import { parseArgs } from "node:util";
import { encodeInventory } from "../../../../shared/contract.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { type MarkerProof, proofKey } from "../../../../shared/domain/marker-proof.js";
import { openSecrets } from "../../app/app.js";
import { RedactingInventoryStore } from "../../app/redacting-inventory-store.js";
import { SecretRedactor } from "../../app/redactor.js";
import { sourceSecrets } from "../../app/source-secrets.js";
import { CONFIG_FILE_NAME, type LeasekeeperConfig, loadConfig } from "../../config/load.js";
import { CoreError } from "../../errors/core-error.js";
import { formatScanTable, knowsEnvironment, scanReport } from "../../inventory/report.js";
import { scanInventory } from "../../inventory/scan.js";
import { createSources, PaperclipDbSource } from "../../leases/index.js";
import { SqliteProofStore } from "../../markers/proof-store.js";
import { openDatabase } from "../../store/database.js";
import { keepScanInSharedStore } from "../../store/postgres/keep-scan.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";

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
    const config = await loadConfig(path.resolve(io.cwd, values.config ?? CONFIG_FILE_NAME));
    const sources = createSources(config, { env: io.env });
    // The same keys as the app (its vault, then the environment), and the same redacting writer.
    const secrets = openSecrets(config, io.env);
    const inventory = await scanInventory({ config, sources, secrets });
    const redactor = new SecretRedactor();
    redactor.set([
      ...(await secrets
        .knownSecrets(config.credentials.map((credential) => credential.name))
        .catch(() => [])),
      ...sourceSecrets(config, io.env),
    ]);

    if (values.environment !== undefined && !knowsEnvironment(inventory, values.environment)) {
      io.stderr.write(`leasekeeper scan: no source lists an environment "${values.environment}".\n`);
      return EXIT.failed;
    }

    // The scan stands without the store: a store that cannot be written costs "new since last scan",
    // not the result.
    let newSinceLastScan: string[] = [];
    const proofs = new Map<string, MarkerProof>();
    try {
      const db = openDatabase(config.dataDir);
      try {
        ({ newSinceLastScan } = new RedactingInventoryStore(db, redactor).save(
          inventory,
          sources.map((source) => source.id),
        ));
        for (const proof of new SqliteProofStore(db).all()) proofs.set(proofKey(proof.subject), proof);
      } finally {
        db.close();
      }
    } catch (error) {
      io.stderr.write(
        `leasekeeper scan: the result was not saved (${error instanceof Error ? error.message : "store error"}).\n`,
      );
    }

    // With a store the team shares, what the others' apps start from, as the app's own scan keeps it.
    await keepForTheTeam(config, io, inventory, redactor);

    for (const source of sources) {
      if (source instanceof PaperclipDbSource && source.lastSchemaNote !== null) {
        io.stderr.write(`leasekeeper scan: ${source.id}: ${source.lastSchemaNote}.\n`);
      }
    }

    const report = scanReport(inventory, {
      environmentId: values.environment,
      newSinceLastScan,
      proofFor: (subject) => proofs.get(proofKey(subject)) ?? null,
    });
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatScanTable(report));
    return EXIT.ok;
  },
};

/** Like the local save, the scan stands without the shared store: a failure is one line, not the result. */
async function keepForTheTeam(
  config: LeasekeeperConfig,
  io: CliIo,
  inventory: Inventory,
  redactor: SecretRedactor,
): Promise<void> {
  try {
    const redacted = redactor.redactDeep(inventory);
    await keepScanInSharedStore(config, io.env, {
      inventory: redacted,
      view: redactor.redactDeep(encodeInventory(redacted)),
    });
  } catch (error) {
    const message =
      error instanceof CoreError ? error.message.replace(/\.$/, "") : "the shared store could not be written";
    io.stderr.write(`leasekeeper scan: the result was not kept in the shared store (${message}).\n`);
  }
}
