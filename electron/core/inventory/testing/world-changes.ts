import fc from "fast-check";
import type { SandboxListing, SourceSnapshot } from "../../../../shared/domain/inventory.js";
import { generationOfVersion } from "../../../../shared/domain/plugin-generations.js";
import type { ReconcileInput } from "../../../../shared/domain/reconcile.js";

const HOUR = 3_600_000;

/** One change between two scans, as Paperclip, an operator, CreateOS or the clock makes them. */
export type Change =
  | { kind: "row-status"; at: number; status: string }
  | { kind: "row-metadata"; at: number; key: string; value: unknown }
  | { kind: "row-removed"; at: number }
  | { kind: "row-copied"; at: number }
  | { kind: "environment-config"; at: number; key: string; value: unknown }
  | { kind: "sandbox-status"; at: number; status: string }
  | { kind: "sandbox-gone"; at: number }
  | { kind: "listing-failed"; at: number }
  | { kind: "clock"; ms: number }
  | { kind: "plugin"; version: string | null };

export const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({
    kind: fc.constant("row-status" as const),
    at: fc.nat(),
    status: fc.constantFrom("active", "released", "retained", "expired", "failed", "pending_cleanup", "odd"),
  }),
  fc.record({
    kind: fc.constant("row-metadata" as const),
    at: fc.nat(),
    key: fc.constantFrom(
      "apiUrl",
      "marker",
      "environmentId",
      "reuseLease",
      "sandboxId",
      "autoPauseAfterSeconds",
    ),
    value: fc.constantFrom(null, true, 60, "https://other.example", "not-a-marker"),
  }),
  fc.record({ kind: fc.constant("row-removed" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("row-copied" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("environment-config" as const),
    at: fc.nat(),
    key: fc.constantFrom("apiUrl", "reuseLease", "rootfs", "autoPauseAfterSeconds"),
    value: fc.constantFrom(null, false, true, 120, "https://other.example"),
  }),
  fc.record({
    kind: fc.constant("sandbox-status" as const),
    at: fc.nat(),
    status: fc.constantFrom("running", "paused", "destroyed", "creating", "weird"),
  }),
  fc.record({ kind: fc.constant("sandbox-gone" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("listing-failed" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("clock" as const), ms: fc.integer({ min: 0, max: 72 * HOUR }) }),
  fc.record({
    kind: fc.constant("plugin" as const),
    version: fc.constantFrom(null, "0.1.0", "0.2.4", "0.3.1", "9.0.0"),
  }),
);

function pick<T>(items: readonly T[], at: number): T | undefined {
  return items.length === 0 ? undefined : items[at % items.length];
}

/** The next scan's input after `step`; rows and environments that change are new objects, as on any read. */
export function applyChange(input: ReconcileInput, step: Change): ReconcileInput {
  const snapshots = input.snapshots.map((snapshot) => ({ ...snapshot, leases: [...snapshot.leases] }));
  const snapshot = snapshots[0] as SourceSnapshot;
  const listings = [...input.listings];
  let now = input.now;
  switch (step.kind) {
    case "row-status": {
      const at = step.at % Math.max(1, snapshot.leases.length);
      const row = snapshot.leases[at];
      if (row) snapshot.leases[at] = { ...row, status: step.status };
      break;
    }
    case "row-metadata": {
      const at = step.at % Math.max(1, snapshot.leases.length);
      const row = snapshot.leases[at];
      if (row) {
        const metadata = typeof row.metadata === "object" && row.metadata !== null ? row.metadata : {};
        snapshot.leases[at] = { ...row, metadata: { ...metadata, [step.key]: step.value } };
      }
      break;
    }
    case "row-removed":
      snapshot.leases.splice(step.at % Math.max(1, snapshot.leases.length), 1);
      break;
    case "row-copied": {
      const row = pick(snapshot.leases, step.at);
      if (row) snapshot.leases.push({ ...row, id: `${row.id}-copy-${snapshot.leases.length}` });
      break;
    }
    case "environment-config": {
      const environments = [...snapshot.environments];
      const at = step.at % Math.max(1, environments.length);
      const environment = environments[at];
      if (environment)
        environments[at] = { ...environment, config: { ...environment.config, [step.key]: step.value } };
      snapshot.environments = environments;
      break;
    }
    case "sandbox-status":
    case "sandbox-gone": {
      const at = step.at % Math.max(1, listings.length);
      const listing = listings[at] as SandboxListing | undefined;
      if (listing?.outcome.ok) {
        const sandboxes = [...listing.outcome.sandboxes];
        const which = step.at % Math.max(1, sandboxes.length);
        const sandbox = sandboxes[which];
        if (sandbox && step.kind === "sandbox-gone") sandboxes.splice(which, 1);
        else if (sandbox && step.kind === "sandbox-status")
          sandboxes[which] = { ...sandbox, status: step.status };
        listings[at] = { ...listing, outcome: { ...listing.outcome, sandboxes } };
      }
      break;
    }
    case "listing-failed": {
      const at = step.at % Math.max(1, listings.length);
      const listing = listings[at];
      if (listing) listings[at] = { ...listing, outcome: { ok: false, reason: "timeout" } };
      break;
    }
    case "clock":
      now = new Date(now.getTime() + step.ms);
      break;
    case "plugin":
      if (step.version === null) delete snapshot.installedPlugin;
      else
        snapshot.installedPlugin = {
          version: step.version,
          generation: generationOfVersion(step.version),
          readFrom: "the plugins table",
        };
      break;
  }
  return { ...input, snapshots, listings, now };
}
