import { parseArgs } from "node:util";
import { QUARANTINE_LIST_LIMIT } from "../../../../shared/contract/quarantine.js";
import type { Quarantine } from "../../../../shared/domain/quarantine.js";
import { timeLeft } from "../../../../shared/domain/quarantine.js";
import { CoreError } from "../../errors/core-error.js";
import { type QuarantineOutcome, unjudgedSentence } from "../../quarantine/index.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliCore, withScanReason } from "../core.js";

export const command: CliCommand = {
  name: "quarantine",
  summary:
    "Pause sandboxes now and destroy them after some hours unless claimed; list, cancel, run what is due.",
  usage: `Usage: leasekeeper quarantine [--config FILE] (--lease ID… | --untracked SANDBOX… [--origin URL]) --hours H
                             [--confirm SANDBOX…] [--json]
       leasekeeper quarantine [--config FILE] --list [--all] [--json]
       leasekeeper quarantine [--config FILE] --cancel ID [--resume-sandbox]
       leasekeeper quarantine [--config FILE] --resume ID
       leasekeeper quarantine [--config FILE] --run-due [--json]

  --lease ID            a lease whose sandbox to quarantine (repeatable)
  --untracked SANDBOX   a sandbox no row names (repeatable)
  --origin URL          with --untracked: the CreateOS API it is listed at, when two list the same id
  --hours H             how long it stays paused before its destroy (more than 0, fractions allowed)
  --confirm SANDBOX     the sandbox id typed back, for one whose destroy would be forced (repeatable)
  --list                the open quarantines with the time left (--all: ended ones too)
  --cancel ID           cancel a quarantine before it is due (--resume-sandbox: and resume the sandbox)
  --resume ID           resume a quarantine's sandbox (cancelling the quarantine if it is still open)
  --run-due             finish what a stopped process left half-done, cancel what a lease holds now,
                        and destroy what is due, through the guarded path; a running app does this itself
  --json                print the answer as JSON

The sandbox is paused at once; its destroy, when due, is re-checked then as any destroy is, and a refusal
leaves it paused ("kept", with the reason). Exit code 1 when anything was refused or failed, or when
--run-due could not read the inventory, so its waiting quarantines were not judged.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        lease: { type: "string", multiple: true },
        untracked: { type: "string", multiple: true },
        origin: { type: "string" },
        hours: { type: "string" },
        confirm: { type: "string", multiple: true },
        list: { type: "boolean", default: false },
        all: { type: "boolean", default: false },
        cancel: { type: "string" },
        "resume-sandbox": { type: "boolean", default: false },
        resume: { type: "string" },
        "run-due": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const leases = values.lease ?? [];
    const untracked = values.untracked ?? [];
    const creating = leases.length + untracked.length > 0;
    const modes = [
      creating,
      values.list,
      values.cancel !== undefined,
      values.resume !== undefined,
      values["run-due"],
    ];
    if (modes.filter(Boolean).length !== 1) {
      throw new CoreError(
        "usage",
        "bad-arguments",
        "Give one of --lease/--untracked with --hours, --list, --cancel, --resume or --run-due.",
      );
    }
    const hours = creating ? parseHours(values.hours) : null;
    if (values.origin !== undefined && untracked.length === 0)
      throw new CoreError("usage", "bad-arguments", "--origin goes with --untracked.");

    const core = await openCliCore(values.config, io);
    try {
      const service = core.quarantine;
      if (service === null) throw new Error("Quarantine needs the guarded actions and the local store.");
      const print = (value: unknown, text: string) =>
        io.stdout.write(values.json ? `${JSON.stringify(value, null, 2)}\n` : text);

      if (hours !== null) {
        const outcomes = await service
          .quarantine({
            leases: leases.map((leaseId) => ({ leaseId })),
            untracked: untracked.map((sandboxId) => ({ sandboxId, origin: values.origin })),
            hours,
            confirmSandboxIds: values.confirm ?? [],
          })
          .catch((error: unknown) => Promise.reject(withScanReason(core, error)));
        print({ outcomes }, formatOutcomes(outcomes));
        return outcomes.every((outcome) => outcome.ok) ? EXIT.ok : EXIT.failed;
      }
      if (values.list) {
        const limit = QUARANTINE_LIST_LIMIT;
        const { quarantines, cut } = await service.listNewest({
          ...(values.all ? {} : { open: true }),
          limit,
        });
        // A cut list says so: its length is not how many there are.
        const more = cut ? `Only the newest ${limit} are listed; more are recorded.\n` : "";
        print(
          { now: new Date().toISOString(), quarantines, cut },
          formatList(quarantines, new Date()) + more,
        );
        return EXIT.ok;
      }
      if (values.cancel !== undefined) {
        const cancelled = await service.cancel(values.cancel, { resume: values["resume-sandbox"] });
        print(
          cancelled,
          `cancelled ${cancelled.quarantineId}  ${cancelled.sandboxId}${values["resume-sandbox"] ? "  resumed" : ""}\n`,
        );
        return EXIT.ok;
      }
      if (values.resume !== undefined) {
        const resumed = await service.resume(values.resume);
        print(
          resumed,
          `resumed ${resumed.sandboxId}  (quarantine ${resumed.quarantineId} ${resumed.state})\n`,
        );
        return EXIT.ok;
      }
      const { moved, unjudged } = await service.runDue();
      const redact = (text: string) => core.log.redact(text);
      // "Nothing was due" only when every waiting quarantine was judged: an unread inventory is not that.
      const said = unjudged === null ? "" : `${unjudgedSentence(unjudged, redact)}\n`;
      const listed =
        moved.length > 0 ? formatList(moved, new Date()) : said === "" ? "Nothing was due.\n" : "";
      print(
        { moved, unjudged: unjudged === null ? null : { ...unjudged, because: redact(unjudged.because) } },
        listed + said,
      );
      return unjudged !== null || moved.some((quarantine) => quarantine.state === "failed")
        ? EXIT.failed
        : EXIT.ok;
    } finally {
      await core.close();
    }
  },
};

function parseHours(raw: string | undefined): number {
  if (raw === undefined)
    throw new CoreError("usage", "bad-arguments", "--hours is required with --lease or --untracked.");
  const hours = Number(raw);
  if (!Number.isFinite(hours) || hours <= 0)
    throw new CoreError("usage", "bad-arguments", "--hours must be a number of hours above 0.");
  return hours;
}

function formatOutcomes(outcomes: readonly QuarantineOutcome[]): string {
  if (outcomes.length === 0) return "Nothing to quarantine.\n";
  const lines = outcomes.map((outcome) =>
    outcome.ok
      ? `quarantined ${outcome.quarantine.quarantineId}  ${outcome.quarantine.sandboxId}  due ${outcome.quarantine.dueAt}`
      : `refused ${outcome.sandboxId ?? outcome.leaseId ?? "?"}  ${outcome.reason}  ${outcome.message}`,
  );
  return `${lines.join("\n")}\n`;
}

function formatList(quarantines: readonly Quarantine[], now: Date): string {
  if (quarantines.length === 0) return "No quarantines.\n";
  const lines = quarantines.map((quarantine) => {
    const when =
      quarantine.state === "waiting" ? `destroyed in ${timeLeft(quarantine.dueAt, now)}` : quarantine.state;
    const who = quarantine.leaseId === null ? "untracked" : `lease ${quarantine.leaseId}`;
    const why = quarantine.message && quarantine.state !== "waiting" ? `  ${quarantine.message}` : "";
    return `${quarantine.quarantineId}  ${quarantine.sandboxId}  ${who}  ${when}${why}`;
  });
  return `${lines.join("\n")}\n`;
}
