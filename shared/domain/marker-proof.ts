import { isWellFormedMarker, type LeaseMetadata, metadataObject, recorded } from "./lease-metadata.js";
import type { LeaseRow } from "./paperclip.js";
import { recordedSandboxId } from "./sandbox-id.js";
import { sandboxStatusWords } from "./sandbox-status-words.js";

/**
 * Whose sandbox this is, by the one piece of evidence metadata cannot fake: the workspace marker. The
 * CreateOS plugin writes a random UUID into every sandbox it acquires, at `MARKER_PATH`, and records the
 * same value in the lease's `metadata.marker`; on resume it reads the file back with `/bin/cat` and keeps
 * the sandbox only when the output equals the recorded value exactly. The same read, judged here, tells
 * an operator which row (if any) a sandbox belongs to.
 *
 * "Cannot read" is never evidence: a paused sandbox is not resumed just to be read, and an exec error or
 * a timeout says nothing about the files.
 */

export const MARKER_PATH = "/paperclip-workspace/.paperclip-runtime/.paperclip-createos-lease";

/** The plugin's own read: no shell, so nothing in the path is interpreted. */
export const MARKER_READ = { cmd: "/bin/cat", args: [MARKER_PATH] } as const;

/** How much of a marker may be shown anywhere a person or a log can see it. */
export const MARKER_PREFIX_LENGTH = 8;

export const MARKER_ANSWERS = ["proven", "another-lease", "no-marker", "cannot-read"] as const;
export type MarkerAnswer = (typeof MARKER_ANSWERS)[number];

export const NO_MARKER_REASONS = [
  /** The file is not there: not a Paperclip workspace, or wiped. */
  "file-absent",
  "empty",
  /** Something is at the path, but not a marker the plugin could have written. */
  "not-a-workspace",
  /** A well-formed marker that no row of any source records. */
  "unrecorded-marker",
] as const;

export const CANNOT_READ_REASONS = [
  /** Paused, pausing, creating, destroyed…: exec needs a running sandbox, and none is resumed to read. */
  "not-running",
  /** CreateOS answered 404: purged, or another account's. */
  "not-found",
  /** No credential's listing showed the sandbox, so there is no account to ask. */
  "not-listed",
  "no-credential",
  "no-sandbox-id",
  "exec-error",
  "timeout",
  "request-failed",
] as const;

export type NoMarkerReason = (typeof NO_MARKER_REASONS)[number];
export type CannotReadReason = (typeof CANNOT_READ_REASONS)[number];

/** What the main side observed when it tried to read a sandbox's marker. */
export type MarkerReading =
  | { kind: "not-read"; reason: CannotReadReason; sandboxStatus: string | null }
  | {
      kind: "read";
      /** The status CreateOS reported just before the read. */
      sandboxStatus: string;
      exitCode: number | null;
      stdout: string;
      stderr: string;
      /** The agent could not start `/bin/cat` at all. */
      error: string | null;
    };

/** A row that records a marker, as the index keeps it (never the marker itself). */
export interface MarkerRecorder {
  sourceId: string;
  leaseId: string;
  status: string;
  /** The sandbox the row names, or null when the row lost it. */
  sandboxId: string | null;
}

/** How a row that records the marker a sandbox holds relates to that sandbox. */
export type OwnerRelation = "no-sandbox-id" | "names-this-sandbox" | "names-another-sandbox";

export interface MarkerOwner {
  sourceId: string;
  leaseId: string;
  status: string;
  relation: OwnerRelation;
}

/** Every recorded marker, to the rows that record it. Build it once per inventory. */
export type MarkerIndex = ReadonlyMap<string, readonly MarkerRecorder[]>;

export function buildMarkerIndex(
  rows: Iterable<{ sourceId: string; lease: LeaseRow }>,
  /** Only these markers: an index for the markers some reads found, over however many rows. */
  only?: ReadonlySet<string>,
): MarkerIndex {
  const index = new Map<string, MarkerRecorder[]>();
  for (const { sourceId, lease } of rows) {
    const marker = recordedMarker(lease.metadata);
    if (marker === null || (only !== undefined && !only.has(marker))) continue;
    const recorder = {
      sourceId,
      leaseId: lease.id,
      status: lease.status,
      sandboxId: recordedSandboxId(lease),
    };
    const list = index.get(marker);
    if (list) list.push(recorder);
    else index.set(marker, [recorder]);
  }
  return index;
}

/** What the sandboxes' reads found that an index may name: the output of every read that ran. */
export function markersFound(readings: Iterable<MarkerReading>): string[] {
  const found = new Set<string>();
  for (const reading of readings)
    if (reading.kind === "read" && reading.stdout !== "") found.add(reading.stdout);
  return [...found];
}

/**
 * The marker a row records: flat, as the plugin writes it, or nested under `providerMetadata` by an
 * older schema, whose rows are exactly the ones that lose track of their sandbox.
 */
export function recordedMarker(rawMetadata: unknown): string | null {
  const metadata = metadataObject(rawMetadata);
  if (metadata === null) return null;
  const flat = recorded(metadata, "marker");
  if (isWellFormedMarker(flat)) return flat as string;
  const nested = metadataObject(recorded(metadata, "providerMetadata"));
  const inner = nested === null ? undefined : recorded(nested as LeaseMetadata, "marker");
  return isWellFormedMarker(inner) ? (inner as string) : null;
}

export function markerPrefix(marker: string): string {
  return marker.slice(0, MARKER_PREFIX_LENGTH);
}

/** The sandbox being proven, and the row it is proven for (null for a sandbox no row names). */
export interface MarkerSubject {
  sandboxId: string | null;
  lease: { sourceId: string; leaseId: string; metadata: unknown } | null;
}

export interface MarkerJudgement {
  answer: MarkerAnswer;
  reason: NoMarkerReason | CannotReadReason | null;
  /** Rows that record the marker the sandbox holds, other than the subject row (at most `OWNER_LIMIT`). */
  owners: MarkerOwner[];
  /** The first characters of what was read, only when it looked like a marker. */
  markerPrefix: string | null;
  /** One sentence in the operator's words. */
  message: string;
}

/** At most this many owners are named; a proof naming exactly this many may have left some out. */
export const OWNER_LIMIT = 10;
const RELATION_ORDER: Record<OwnerRelation, number> = {
  "no-sandbox-id": 0,
  "names-this-sandbox": 1,
  "names-another-sandbox": 2,
};
const MISSING_FILE = /No such file or directory/i;
const NOT_A_FILE = /Is a directory|Not a directory/i;

export function judgeMarker(
  reading: MarkerReading,
  subject: MarkerSubject,
  index: MarkerIndex,
): MarkerJudgement {
  if (reading.kind === "not-read") return cannotRead(reading.reason, reading.sandboxStatus);
  // Defence in depth: a read that somehow happened on a sandbox that was not running proves nothing.
  if (reading.sandboxStatus !== "running") return cannotRead("not-running", reading.sandboxStatus);
  if (reading.error !== null || reading.exitCode === null) return cannotRead("exec-error", null);
  if (reading.exitCode !== 0) {
    if (MISSING_FILE.test(reading.stderr)) return noMarker("file-absent", null);
    if (NOT_A_FILE.test(reading.stderr)) return noMarker("not-a-workspace", null);
    return cannotRead("exec-error", null);
  }

  const found = reading.stdout;
  if (found === "") return noMarker("empty", null);
  const wellFormed = isWellFormedMarker(found);
  const prefix = wellFormed ? markerPrefix(found) : null;
  const own = subject.lease === null ? null : recordedMarker(subject.lease.metadata);
  // The plugin's comparison, exactly: `stdout !== marker` expires the lease.
  if (own !== null && found === own) {
    return {
      answer: "proven",
      reason: null,
      owners: [],
      markerPrefix: prefix,
      message: "The sandbox holds this lease's workspace marker: it is this lease's sandbox.",
    };
  }

  const owners = ownersOf(found, subject, index);
  if (owners.length > 0) {
    return {
      answer: "another-lease",
      reason: null,
      owners,
      markerPrefix: prefix,
      message: ownedMessage(subject, owners[0]!),
    };
  }
  if (!wellFormed) return noMarker("not-a-workspace", null);
  return noMarker("unrecorded-marker", prefix);
}

function ownersOf(found: string, subject: MarkerSubject, index: MarkerIndex): MarkerOwner[] {
  const recorders = index.get(found) ?? [];
  return recorders
    .filter(
      (recorder) =>
        subject.lease === null ||
        recorder.leaseId !== subject.lease.leaseId ||
        recorder.sourceId !== subject.lease.sourceId,
    )
    .map((recorder) => ({
      sourceId: recorder.sourceId,
      leaseId: recorder.leaseId,
      status: recorder.status,
      relation: relationOf(recorder.sandboxId, subject.sandboxId),
    }))
    .sort((a, b) => RELATION_ORDER[a.relation] - RELATION_ORDER[b.relation])
    .slice(0, OWNER_LIMIT);
}

function relationOf(recordedId: string | null, sandboxId: string | null): OwnerRelation {
  if (recordedId === null) return "no-sandbox-id";
  return recordedId === sandboxId ? "names-this-sandbox" : "names-another-sandbox";
}

function ownedMessage(subject: MarkerSubject, owner: MarkerOwner): string {
  if (subject.lease !== null) {
    return `The sandbox holds the workspace marker of lease ${owner.leaseId}, not this lease's.`;
  }
  switch (owner.relation) {
    case "no-sandbox-id":
      return `This sandbox belongs to lease ${owner.leaseId}, whose row lost its sandbox id.`;
    case "names-another-sandbox":
      return `This sandbox holds the workspace marker of lease ${owner.leaseId}, whose row names another sandbox.`;
    default:
      return `This sandbox belongs to lease ${owner.leaseId}.`;
  }
}

const NO_MARKER_MESSAGES: Record<NoMarkerReason, string> = {
  "file-absent": "No workspace marker in this sandbox: not a Paperclip workspace, or wiped.",
  empty: "The workspace marker file is empty: not a Paperclip workspace, or wiped.",
  "not-a-workspace": "What is at the marker path is not a Paperclip workspace marker.",
  "unrecorded-marker": "The sandbox holds a workspace marker that no lease row records.",
};

const CANNOT_READ_MESSAGES: Record<CannotReadReason, string> = {
  "not-running": "The marker was not read: the sandbox is not running, and none is resumed just to be read.",
  "not-found": "The marker was not read: CreateOS does not know this sandbox for this account.",
  "not-listed": "The marker was not read: no configured account lists this sandbox.",
  "no-credential": "The marker was not read: no API key is set for this sandbox's account.",
  "no-sandbox-id": "The marker was not read: the row names no sandbox.",
  "exec-error": "The marker could not be read: the command failed inside the sandbox.",
  timeout: "The marker could not be read in time.",
  "request-failed": "The marker could not be read: the request to CreateOS failed.",
};

function noMarker(reason: NoMarkerReason, prefix: string | null): MarkerJudgement {
  return {
    answer: "no-marker",
    reason,
    owners: [],
    markerPrefix: prefix,
    message: NO_MARKER_MESSAGES[reason],
  };
}

function cannotRead(reason: CannotReadReason, sandboxStatus: string | null): MarkerJudgement {
  const sentence =
    reason === "not-running" && sandboxStatus !== null
      ? `The marker was not read: the sandbox is ${sandboxStatusWords(sandboxStatus)}, and none is resumed just to be read.`
      : CANNOT_READ_MESSAGES[reason];
  return {
    answer: "cannot-read",
    reason,
    owners: [],
    markerPrefix: null,
    message: `${sentence} This is no evidence either way.`,
  };
}

/** What a proof is about: a row, or a sandbox no row names. */
export type ProofSubject =
  | { kind: "lease"; sourceId: string; leaseId: string }
  | { kind: "untracked"; origin: string; credential: string; sandboxId: string };

/** One marker read, judged, with when it was read. Holds no marker, only its prefix. */
export interface MarkerProof extends MarkerJudgement {
  subject: ProofSubject;
  sandboxId: string | null;
  origin: string | null;
  sandboxStatus: string | null;
  readAt: string;
  /**
   * Whether a part of the sources the proof's scan could not read may hold a row recording the marker
   * (`unreadRowsAt` at the sandbox's origin): its owners are then of the rows read, not of every row.
   * Absent from a proof kept before proofs said so, which is not known either way.
   */
  gapMayRecord?: boolean;
}

/** The key a proof is kept under, so an inventory read can find it for its row or its untracked sandbox. */
export function proofKey(subject: ProofSubject): string {
  return subject.kind === "lease"
    ? `lease\u0000${subject.sourceId}\u0000${subject.leaseId}`
    : `sandbox\u0000${subject.origin}\u0000${subject.sandboxId}`;
}
