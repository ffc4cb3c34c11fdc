import { z } from "zod";
import type { Inventory } from "./inventory.js";
import type { SourceGap } from "./paperclip.js";
import { recordedSandboxId } from "./sandbox-id.js";
import { gapInWords, unreadRowsAt } from "./unread-rows.js";

/**
 * Quarantine: reversible first. A sandbox is paused at once (compute billing stops, its files survive) and
 * destroyed after a number of hours unless someone claims it: the operator cancels (and may resume it),
 * or a lease row starts to hold it. When it is due, the destroy runs through the guarded path with its
 * re-check at that moment; a refusal then ends the quarantine `kept`, with the reason.
 */

export const QUARANTINE_STATES = [
  /** Recorded; the pause is being sent (a restart reads the sandbox before sending it again). */
  "pausing",
  /** Paused; destroyed at `dueAt` unless claimed. */
  "waiting",
  /** Due: the guarded destroy was planned (and its job started); a restart sees the job through. */
  "destroying",
  "destroyed",
  /** Due, but the re-check refused the destroy (or it was not confirmed gone): left as it is. */
  "kept",
  /** Claimed before it was due: by the operator, or by a lease row that started to hold it. */
  "cancelled",
  /** It could not be paused, so it is not destroyed either. */
  "failed",
] as const;
export type QuarantineState = (typeof QUARANTINE_STATES)[number];

export const OPEN_QUARANTINE_STATES = [
  "pausing",
  "waiting",
  "destroying",
] as const satisfies readonly QuarantineState[];

/** At most a month: a quarantine is a short grace period, not a schedule. */
export const QUARANTINE_MAX_HOURS = 24 * 30;

export const QuarantineSchema = z.object({
  quarantineId: z.string(),
  sandboxId: z.string(),
  origin: z.string(),
  credential: z.string(),
  /** The row whose sandbox it is; null for an untracked sandbox. */
  leaseId: z.string().nullable(),
  sourceId: z.string().nullable(),
  environmentName: z.string().nullable(),
  hours: z.number(),
  createdAt: z.string(),
  pausedAt: z.string().nullable(),
  dueAt: z.string(),
  state: z.enum(QUARANTINE_STATES),
  endedAt: z.string().nullable(),
  /** Why it ended as it did (a guard's reason, `claimed`, `operator`), and the sentence for the operator. */
  reason: z.string().nullable(),
  message: z.string().nullable(),
  /** The lease that claimed it, when a row started to hold it. */
  claimedBy: z.string().nullable(),
  /** A forced destroy is quarantined only with its sandbox id typed back; the due destroy carries it. */
  confirmedBy: z.enum(["click", "typed-id"]),
  /**
   * True when that typed id was a kept marker proof's (the janitor's), not a person's: the proof may stop
   * proving before the destroy is due, so the due destroy reads it again. Absent in records made before.
   */
  confirmedByProof: z.boolean().optional(),
  planId: z.string().nullable(),
  jobId: z.string().nullable(),
  operator: z.string(),
});
export type Quarantine = z.infer<typeof QuarantineSchema>;

export function isOpenQuarantine(quarantine: Pick<Quarantine, "state">): boolean {
  return (OPEN_QUARANTINE_STATES as readonly string[]).includes(quarantine.state);
}

export function isDue(quarantine: Pick<Quarantine, "state" | "dueAt">, now: Date): boolean {
  return quarantine.state === "waiting" && Date.parse(quarantine.dueAt) <= now.getTime();
}

export function dueAtFor(from: Date, hours: number): string {
  return new Date(from.getTime() + Math.round(hours * 3_600_000)).toISOString();
}

/** Row statuses in which Paperclip holds the sandbox for work: a quarantine must give way to them. */
const HOLDING_STATUSES = new Set(["active", "retained"]);

export interface QuarantineClaim {
  sourceId: string;
  leaseId: string;
  status: string;
}

/**
 * The row that holds a quarantined sandbox now, if any: for an untracked sandbox any row that names it
 * (Paperclip writes a row for a sandbox it starts using), for a row's sandbox any row naming it that is
 * active or retained (the row itself picked up again, or another row sharing it).
 */
export function quarantineClaim(
  quarantine: Pick<Quarantine, "sandboxId" | "origin" | "leaseId" | "sourceId">,
  inventory: Pick<Inventory, "leases">,
): QuarantineClaim | null {
  for (const classified of inventory.leases) {
    const { lease } = classified;
    if (recordedSandboxId(lease) !== quarantine.sandboxId) continue;
    if (classified.provider.origin !== null && classified.provider.origin !== quarantine.origin) continue;
    const untracked = quarantine.leaseId === null;
    if (untracked || HOLDING_STATUSES.has(lease.status)) {
      return { sourceId: classified.sourceId, leaseId: lease.id, status: lease.status };
    }
  }
  return null;
}

/**
 * The part of the sources not read that may hold a row naming a row's quarantined sandbox
 * (`unreadRowsAt`), if any. That row may be a live lease on the sandbox, so while it stands the due
 * destroy waits: nothing read claims the sandbox, so it is not cancelled either. A sandbox no row names
 * is not held here: its destroy's plan refuses it while a source at its origin is incomplete.
 */
export function quarantineUnread(
  quarantine: Pick<Quarantine, "origin" | "leaseId">,
  gaps: readonly SourceGap[],
): SourceGap | null {
  if (quarantine.leaseId === null) return null;
  return unreadRowsAt(gaps)(quarantine.origin);
}

/** Why a due quarantine waits while `gap` stands, in the operator's words. */
export function unreadHoldSentence(gap: SourceGap): string {
  return unreadPartHoldSentence(gapInWords(gap));
}

/** The same, for a part named in words only (`gapInWords`), as a plan item's caution names it. */
export function unreadPartHoldSentence(part: string): string {
  return `a part of the sources that could not be read may name its sandbox, as a live lease on it (${part})`;
}

/** "3 h 20 min", "12 min", "due now": how long until a quarantine's destroy. */
export function timeLeft(dueAt: string, now: Date): string {
  const ms = Date.parse(dueAt) - now.getTime();
  if (!(ms > 0)) return "due now";
  const minutes = Math.ceil(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** Where a page of open quarantines ended: the due time and id of its last record as stored. */
export interface OpenQuarantineCursor {
  dueAt: string;
  quarantineId: string;
}

export interface OpenQuarantinePage {
  /** A record that no longer parses is skipped, not thrown; the cursor still moves past it. */
  quarantines: Quarantine[];
  next: OpenQuarantineCursor | null;
}
