import { KNOWN_LEASE_STATUSES, PLUGIN_MESSAGES } from "./codes.js";
import { driftedFields } from "./flags.js";
import type { ClassifiedLease, UnknownReason } from "./inventory.js";
import { displayValue, metadataObject, recorded } from "./lease-metadata.js";
import { ownershipMismatch } from "./ownership.js";

/** Listing failures that say the recorded URL does not answer, as opposed to a key or a quota problem. */
const UNREACHABLE: readonly UnknownReason[] = ["network", "timeout", "server-error", "invalid-url"];

/**
 * What Paperclip itself will do with this lease, in one sentence: the host's release, resume and
 * cleanup paths applied to the row as it stands. Release and cleanup use the config recorded in the
 * lease (its API URL, its reuseLease); resume uses the environment's current config and fingerprint.
 */
export function paperclipWill(
  classified: Pick<ClassifiedLease, "lease" | "environment" | "verdict" | "provider">,
): string {
  const { lease, environment, verdict, provider } = classified;
  const status = lease.status;
  if (verdict.headline === "closed")
    return "Nothing: the lease is over and nothing of it is left at CreateOS; it is history.";
  if (!(KNOWN_LEASE_STATUSES as readonly string[]).includes(status)) {
    return `Nothing Leasekeeper can predict: Paperclip defines no lease status "${displayValue(status)}".`;
  }
  if (status === "expired" || status === "failed") {
    return `Nothing: the lease is ${status}, and Paperclip never calls CreateOS about it again.`;
  }
  const reusable = lease.leasePolicy === "reuse_by_environment";
  const callsAgain = status !== "released" || reusable;
  if (callsAgain && environment === null) {
    return "Nothing it can finish: the lease's environment is gone, so no plugin call can be made for it and only a destroy at its recorded URL cleans it up.";
  }
  if (callsAgain && ownershipMismatch(verdict.ownership) !== null) {
    return `Refuses it with "${PLUGIN_MESSAGES.foreignLease}" whenever it releases, resumes or cleans it up.`;
  }
  const origin = displayValue(provider.origin) ?? "its recorded URL";
  switch (status) {
    case "pending_cleanup":
      if (verdict.flags.includes("host-cleanup"))
        return "Is cleaning it up now: its sweep holds a claim on the lease.";
      if (
        provider.code === "unknown" &&
        provider.unknownReason !== null &&
        UNREACHABLE.includes(provider.unknownReason)
      ) {
        return `Keeps retrying cleanup against an unreachable recorded URL (${origin}).`;
      }
      return `Retries its cleanup at the next sweep: destroys the sandbox at the recorded URL (${origin}) and marks the lease expired.`;
    case "active":
      if (verdict.flags.includes("in-use")) {
        return `Releases it normally when the run ends: ${releaseEffect(lease.metadata)} at ${origin}.`;
      }
      return "Moves it to pending_cleanup at its next sweep (no run holds it), then destroys the sandbox.";
    case "retained":
      return "Keeps it: a retained lease waits until someone releases it.";
    default:
      return released(classified, reusable);
  }
}

function released(
  { lease, environment, verdict }: Pick<ClassifiedLease, "lease" | "environment" | "verdict">,
  reusable: boolean,
): string {
  if (!reusable) return "Nothing: the lease is released, and Paperclip never calls CreateOS about it again.";
  if (verdict.ownership.includes("api-url-changed")) {
    return "Expires it at the next resume: the environment's API URL changed, so the resume fails and Paperclip destroys the sandbox at the recorded URL.";
  }
  if (verdict.flags.includes("stale-config")) {
    const metadata = metadataObject(lease.metadata);
    const fields = metadata === null || environment === null ? [] : driftedFields(metadata, environment);
    const which = fields.length > 0 ? ` (${fields.join(", ")})` : " (its workspace marker)";
    return `Expires it at the next resume because its config fingerprint changed${which}: Paperclip destroys the sandbox instead of resuming it.`;
  }
  if (environment !== null && environment.config.reuseLease === false) {
    return "Nothing: the environment no longer reuses leases, so Paperclip never resumes this one and its sandbox stays as it is.";
  }
  return "Resumes it for the next run of the same agent in the same workspace; until then the sandbox stays as it is.";
}

/** What a release does at CreateOS: the host releases with the config recorded in the lease. */
export function releaseEffect(metadata: unknown): string {
  return recordedReuseLease(metadata) === true
    ? "pauses the sandbox (recorded reuseLease)"
    : "deletes the sandbox (recorded reuseLease off)";
}

/**
 * The reuseLease the lease recorded, as the host reads it when it rebuilds the config from the lease's
 * metadata: anything but `true` is off. Null when the metadata is not an object at all.
 */
export function recordedReuseLease(metadata: unknown): boolean | null {
  const object = metadataObject(metadata);
  return object === null ? null : recorded(object, "reuseLease") === true;
}
