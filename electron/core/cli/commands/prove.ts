import { parseArgs } from "node:util";
import { CoreError } from "../../errors/core-error.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliCore } from "../core.js";
import { formatProofs, proofEntry } from "../proofs.js";

export const command: CliCommand = {
  name: "prove",
  summary: "Read sandboxes' workspace markers to prove whose they are. Never resumes a paused sandbox.",
  usage: `Usage: leasekeeper prove [--config FILE] (--lease ID… | --untracked SANDBOX… [--origin URL]) [--json]

  --lease ID            a lease whose sandbox to read (repeatable)
  --untracked SANDBOX   a sandbox no row names, to match against every row's marker (repeatable)
  --origin URL          with --untracked: the CreateOS API it is listed at, when two list the same id
  --json                print the proofs as JSON, each with its markerProof

Each answer is proven, another-lease (naming the row whose marker the sandbox holds), no-marker or
cannot-read (paused, not running, an exec error or a timeout: no evidence either way).
Exit code 0 when the sandboxes were read, whatever they held; 1 when it could not run; 2 on bad arguments.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        lease: { type: "string", multiple: true },
        untracked: { type: "string", multiple: true },
        origin: { type: "string" },
        json: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const leases = values.lease ?? [];
    const untracked = values.untracked ?? [];
    if (leases.length + untracked.length === 0)
      throw new CoreError("usage", "bad-arguments", "Give at least one --lease or --untracked.");
    if (values.origin !== undefined && untracked.length === 0) {
      throw new CoreError("usage", "bad-arguments", "--origin goes with --untracked.");
    }
    // The core's markers: its scan, the vault's keys, and the configured store (the team's too) for the proofs.
    const core = await openCliCore(values.config, io);
    let proofs: Awaited<ReturnType<typeof core.markers.prove>>;
    try {
      await core.inventory.refresh();
      proofs = await core.markers.prove({
        leases: leases.map((leaseId) => ({ leaseId })),
        untracked: untracked.map((sandboxId) => ({ sandboxId, origin: values.origin })),
      });
    } finally {
      await core.close();
    }
    io.stdout.write(
      values.json ? `${JSON.stringify({ proofs: proofs.map(proofEntry) }, null, 2)}\n` : formatProofs(proofs),
    );
    return EXIT.ok;
  },
};
