import { parseArgs } from "node:util";
import type { MarkerProof } from "../../../../shared/domain/marker-proof.js";
import { CoreError, isCoreError } from "../../errors/core-error.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliCore } from "../core.js";
import { type NotReadPart, notReadLines, notReadParts, partsCount } from "../plan-not-read.js";
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
Each part of a source that could not be read is named after the answers, and --json carries them as
gaps: a row there may record a marker no row read records.
Exit code 0 when every answer was given, whatever the sandboxes held (cannot-read too); 1 when a
no-marker (unrecorded-marker) answer was given while a part was not read, when a lease was not
found, or when it could not run; 2 on bad arguments.`,

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
    let proofs: MarkerProof[];
    let gaps: NotReadPart[] = [];
    try {
      await core.inventory.refresh();
      // The row recording a marker may be one a source could not read: the answers are of the rows
      // read, and name what was not. Gaps are a source's words, so keys are taken out.
      gaps = core.log.redactor.redactDeep(notReadParts(core.inventory.summary?.gaps ?? []));
      proofs = await core.markers.prove({
        leases: leases.map((leaseId) => ({ leaseId })),
        untracked: untracked.map((sandboxId) => ({ sandboxId, origin: values.origin })),
      });
    } catch (error) {
      throw maybeUnread(error, gaps);
    } finally {
      await core.close();
    }
    io.stdout.write(
      values.json
        ? `${JSON.stringify({ proofs: proofs.map(proofEntry), gaps }, null, 2)}\n`
        : `${formatProofs(proofs)}${notReadLines(gaps, UNRECORDED_MAY_BE_THERE)}`,
    );
    const dependsOnGaps = proofs.some((proof) => proof.reason === "unrecorded-marker");
    return gaps.length > 0 && dependsOnGaps ? EXIT.failed : EXIT.ok;
  },
};

const UNRECORDED_MAY_BE_THERE = "a workspace marker no row read records may be recorded by a row there.";

/**
 * A lease id not in the rows read may be a row of a part not read: the failure says so, with the parts.
 * Only a lease not found is about rows; a sandbox not found, or a lease two sources list, is not.
 */
function maybeUnread(error: unknown, gaps: readonly NotReadPart[]): unknown {
  if (gaps.length === 0 || !isCoreError(error, "inventory") || error.code !== "lease-not-found") return error;
  const parts = gaps.map((part) => `${part.source}: ${part.message}`).join("; ");
  return new CoreError(
    "inventory",
    "lease-not-found",
    `${error.message} ${partsCount(gaps)} of the sources could not be read, and it may be there: ${parts}.`,
    { cause: error },
  );
}
