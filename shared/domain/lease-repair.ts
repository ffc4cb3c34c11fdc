import { normalizeApiUrl } from "./api-url.js";
import { CREATEOS_PROVIDER } from "./codes.js";
import {
  displayValue,
  type LeaseMetadata,
  metadataObject,
  recorded,
  recordedNumber,
} from "./lease-metadata.js";
import { type MarkerProof, markerPrefix, recordedMarker } from "./marker-proof.js";
import type { Environment, LeaseRow } from "./paperclip.js";

/**
 * Repair instead of destroy. A row the plugin refuses only because its metadata was lost, written by an
 * older schema (nested under `providerMetadata`) or names the wrong environment, and whose sandbox is
 * proven to hold the row's own marker, can be given back the flat metadata the plugin's ownership rule
 * (`metadataMatches`) and the host's config recovery read; Paperclip can then release and clean it up
 * itself. Everything else is refused with a reason: a row that names another company or provider may be
 * someone else's, and metadata is never rewritten on anything less than a marker proof.
 */

/** What made the plugin refuse the row, among the problems a repair may fix. */
export const REPAIR_PROBLEMS = [
  "metadata-missing",
  "nested-schema",
  "wrong-environment",
  "fields-missing",
] as const;
export type RepairProblem = (typeof REPAIR_PROBLEMS)[number];

export const REPAIR_REFUSALS = [
  "not-proven",
  "nothing-to-repair",
  "orphan-row",
  "foreign-company",
  "foreign-provider",
  "recorded-elsewhere",
  "no-updated-at",
  "not-a-paperclip-row",
  "cleanup-in-flight",
  "partial-metadata",
  "environment-unread",
] as const;
export type RepairRefusalReason = (typeof REPAIR_REFUSALS)[number];

/** Where a repaired field's value came from. */
export type FieldSource = "row" | "old-metadata" | "environment" | "proof" | "plugin-constant";

export interface RepairedField {
  field: string;
  /** Display form; the marker as its prefix only. */
  value: string | null;
  from: FieldSource;
}

export interface UnrestorableField {
  field: string;
  consequence: string;
}

export type HandBack = { ok: true } | { ok: false; reason: "in-use" | "already-queued"; message: string };

export interface LeaseRepair {
  ok: true;
  sourceId: string;
  leaseId: string;
  /** The row's `updatedAt` as read: the compare-and-set value. */
  seenUpdatedAt: string;
  seenStatus: string;
  problems: RepairProblem[];
  /** The whole metadata object to store. Holds the marker: never send it to the renderer or a log. */
  metadata: Record<string, unknown>;
  fields: RepairedField[];
  unrestorable: UnrestorableField[];
  /** Whether the row may also be marked for Paperclip's own cleanup sweep. */
  handBack: HandBack;
}

export interface RepairRefusal {
  ok: false;
  sourceId: string;
  leaseId: string;
  reason: RepairRefusalReason;
  message: string;
}

export type RepairOutcome = LeaseRepair | RepairRefusal;

export interface RepairInput {
  sourceId: string;
  lease: LeaseRow;
  environment: Environment | null;
  proof: MarkerProof | null;
  now: Date;
}

const REMOTE_CWD = "/paperclip-workspace";
const SHELL_COMMAND = "bash";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The sandbox-config fields the plugin records beside the ownership keys. */
const CONFIG_FIELDS = ["shape", "rootfs", "region", "reuseLease"] as const;

const CONSEQUENCES = {
  reusableSandboxLease:
    "The reuse fingerprint is built by Paperclip's host from the environment's config, its secret versions and the plugin's version at acquire time. Without it Paperclip will not resume this sandbox for a new run, but it can release and clean it up.",
  hostKeys:
    "Host bookkeeping written at acquire time, which Leasekeeper cannot know; Paperclip's ownership rule does not read it.",
} as const;

export function computeLeaseRepair(input: RepairInput): RepairOutcome {
  const { sourceId, lease, environment, proof, now } = input;
  const refuse = (reason: RepairRefusalReason, message: string): RepairRefusal => ({
    ok: false,
    sourceId,
    leaseId: lease.id,
    reason,
    message,
  });

  if (!UUID.test(lease.id)) {
    return refuse(
      "not-a-paperclip-row",
      "The lease id is not a Paperclip row id, so no Paperclip database holds it.",
    );
  }
  const marker = recordedMarker(lease.metadata);
  const provenHere =
    marker !== null &&
    proof !== null &&
    proof.answer === "proven" &&
    proof.subject.kind === "lease" &&
    proof.subject.leaseId === lease.id &&
    proof.subject.sourceId === sourceId;
  if (!provenHere || proof.origin === null) {
    return refuse(
      "not-proven",
      `Metadata is only rewritten for a sandbox proven to hold this row's marker. ${proof?.message ?? "Prove it first."}`,
    );
  }
  // A repair writes the whole metadata back: from the scanned keys alone it would delete all the others.
  if (lease.partialMetadata === true) {
    return refuse(
      "partial-metadata",
      "The scan read this row without Paperclip's own bookkeeping keys, and a repair writes the whole metadata back; read the whole row first.",
    );
  }
  if (lease.environmentId === null) {
    return refuse(
      "orphan-row",
      "The row names no environment (it was deleted), so there is no environment to repair it for.",
    );
  }
  // The environment's config is what a repair fills the lost fields from, and what it is judged against.
  if (lease.environmentUnread === true) {
    return refuse(
      "environment-unread",
      `The source could not read this row's environment (${lease.environmentId}), so what the plugin would accept for it is not known; repair it once the environment reads.`,
    );
  }
  if (lease.updatedAt === null) {
    return refuse(
      "no-updated-at",
      "The row carries no update time to compare against; read it from a source that has one.",
    );
  }

  const metadata = metadataObject(lease.metadata);
  const nested = metadata === null ? null : metadataObject(recorded(metadata, "providerMetadata"));
  const read = (key: string): { value: unknown; from: FieldSource } | null => {
    if (metadata !== null && recorded(metadata, key) != null)
      return { value: recorded(metadata, key), from: "old-metadata" };
    if (nested !== null && recorded(nested, key) != null)
      return { value: recorded(nested, key), from: "old-metadata" };
    return null;
  };

  const provider = recordedString(metadata, "provider") ?? recordedString(nested, "provider");
  if (provider !== null && provider !== CREATEOS_PROVIDER) {
    return refuse(
      "foreign-provider",
      `The metadata names another provider (${displayValue(provider)}); it is not the CreateOS plugin's lease.`,
    );
  }
  const company = recordedString(metadata, "companyId") ?? recordedString(nested, "companyId");
  if (company !== null && company !== lease.companyId) {
    return refuse(
      "foreign-company",
      "The metadata names another company than the row: it may be someone else's lease.",
    );
  }
  const recordedUrl = recordedString(metadata, "apiUrl") ?? recordedString(nested, "apiUrl");
  if (recordedUrl !== null) {
    const normalized = normalizeApiUrl(recordedUrl);
    if (!normalized.ok || normalized.origin !== proof.origin) {
      return refuse(
        "recorded-elsewhere",
        "The metadata names another CreateOS API than the one the sandbox was proven at.",
      );
    }
  }
  if (metadata !== null && cleanupInFlight(metadata, now)) {
    return refuse(
      "cleanup-in-flight",
      "Paperclip's cleanup sweep is working on this row right now; leave it to finish.",
    );
  }

  const problems = problemsOf(metadata, nested, lease.environmentId);
  if (problems.length === 0)
    return refuse("nothing-to-repair", "The metadata already names this row's company, environment and API.");

  const fields: RepairedField[] = [
    { field: "provider", value: CREATEOS_PROVIDER, from: "plugin-constant" },
    { field: "apiUrl", value: proof.origin, from: "proof" },
    { field: "companyId", value: lease.companyId, from: "row" },
    { field: "environmentId", value: lease.environmentId, from: "row" },
    { field: "marker", value: `${markerPrefix(marker)}…`, from: "old-metadata" },
  ];
  const repaired: Record<string, unknown> = {
    // Nothing recorded is dropped: nested keys are lifted beside the flat ones, and providerMetadata stays.
    ...(nested === null ? {} : plain(nested)),
    ...(metadata === null ? {} : plain(metadata)),
    provider: CREATEOS_PROVIDER,
    apiUrl: proof.origin,
    companyId: lease.companyId,
    environmentId: lease.environmentId,
    marker,
  };
  for (const [key, value] of [
    ["remoteCwd", REMOTE_CWD],
    ["shellCommand", SHELL_COMMAND],
  ] as const) {
    const found = read(key);
    repaired[key] = found?.value ?? value;
    fields.push({ field: key, value: displayValue(repaired[key]), from: found?.from ?? "plugin-constant" });
  }
  const unrestorable: UnrestorableField[] = [];
  for (const key of CONFIG_FIELDS) {
    const found = read(key);
    const fromEnvironment = environment?.config[key];
    if (found !== null) {
      repaired[key] = found.value;
      fields.push({ field: key, value: displayValue(found.value), from: found.from });
    } else if (fromEnvironment !== undefined) {
      repaired[key] = fromEnvironment;
      fields.push({ field: key, value: displayValue(fromEnvironment), from: "environment" });
    } else {
      repaired[key] = null;
      unrestorable.push({
        field: key,
        consequence:
          "Neither the old metadata nor the environment records it; Paperclip will treat the lease as stale on resume.",
      });
    }
  }
  if (read("reusableSandboxLease") === null) {
    unrestorable.push({ field: "reusableSandboxLease", consequence: CONSEQUENCES.reusableSandboxLease });
  }
  for (const key of ["pluginId", "pluginKey"]) {
    if (read(key) === null) unrestorable.push({ field: key, consequence: CONSEQUENCES.hostKeys });
  }

  return {
    ok: true,
    sourceId,
    leaseId: lease.id,
    seenUpdatedAt: lease.updatedAt,
    seenStatus: lease.status,
    problems,
    metadata: repaired,
    fields,
    unrestorable,
    handBack: handBackOf(lease.status),
  };
}

function problemsOf(
  metadata: LeaseMetadata | null,
  nested: LeaseMetadata | null,
  environmentId: string,
): RepairProblem[] {
  const flat = (key: string) => (metadata === null ? null : recorded(metadata, key));
  const ownershipKeys = ["provider", "companyId", "environmentId", "apiUrl"];
  const flatKeys = ownershipKeys.filter((key) => flat(key) != null);
  if (flatKeys.length === 0) return [nested !== null ? "nested-schema" : "metadata-missing"];
  const problems: RepairProblem[] = [];
  if (flatKeys.length < ownershipKeys.length) problems.push("fields-missing");
  const recordedEnvironment = flat("environmentId");
  if (recordedEnvironment != null && recordedEnvironment !== environmentId)
    problems.push("wrong-environment");
  return problems;
}

function handBackOf(status: string): HandBack {
  if (status === "active") {
    return {
      ok: false,
      reason: "in-use",
      message: "The row is active: a run may hold it, so it is not handed to the cleanup sweep.",
    };
  }
  if (status === "pending_cleanup") {
    return {
      ok: false,
      reason: "already-queued",
      message: "The row is already pending cleanup; the repair alone lets Paperclip's sweep finish it.",
    };
  }
  return { ok: true };
}

/** Paperclip's sweep claims a row by writing these keys; while the claim is live the sweep owns the row. */
function cleanupInFlight(metadata: LeaseMetadata, now: Date): boolean {
  if (recorded(metadata, "pendingCleanupInFlight") !== true) return false;
  const expiresAt = recordedNumber(metadata, "pendingCleanupLeaseExpiresAtMs");
  return Number.isNaN(expiresAt) || expiresAt > now.getTime();
}

function recordedString(metadata: LeaseMetadata | null, key: string): string | null {
  if (metadata === null) return null;
  const value = recorded(metadata, key);
  return typeof value === "string" ? value : null;
}

/** The metadata's own enumerable keys as a plain object (a null-prototype or hostile object included). */
function plain(metadata: LeaseMetadata): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(metadata)) {
    // A recorded "__proto__" key is kept as data, never as the copy's prototype.
    Object.defineProperty(copy, key, {
      value: recorded(metadata, key),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
