import { z } from "zod";
import { CandidateTargetSchema, PassPlanSchema } from "./pass-plan.js";
import { JANITOR_ACTIONS } from "./policy.js";

/**
 * What one pass of `watch` did, or in a dry run would have done: the plan `planPass` made, and per
 * selected item what became of it. Kept in the data directory as the policy's last pass (the app shows
 * it), printed by `watch` (`--json`: one line per pass), and counted in the webhook's message.
 */

export const PASS_MODES = ["dry-run", "act"] as const;
export type PassMode = (typeof PASS_MODES)[number];

export const ITEM_OUTCOMES = [
  /** Dry run: the guard's plan would act on it; the plan was recorded and cancelled. */
  "would-act",
  /** Acted and confirmed at CreateOS (a quarantine: paused, its destroy due later). */
  "done",
  /** Sent, but CreateOS did not confirm it in time. */
  "unconfirmed",
  "failed",
  /** The guard's plan or its re-check skipped it (the reason is the guard's code). */
  "skipped",
  /** The pass stopped (stop file, SIGTERM) before it got to this item. */
  "not-reached",
] as const;
export type ItemOutcome = (typeof ITEM_OUTCOMES)[number];

export const PassResultSchema = z.object({
  rule: z.string(),
  action: z.enum(JANITOR_ACTIONS),
  target: CandidateTargetSchema,
  outcome: z.enum(ITEM_OUTCOMES),
  reason: z.string().nullable(),
  message: z.string().nullable(),
  /** The engine's plan the item was planned in, or the quarantine made for it. */
  planId: z.string().nullable(),
  jobId: z.string().nullable(),
  quarantineId: z.string().nullable(),
});
export type PassResult = z.infer<typeof PassResultSchema>;

/** One part of a source a scan could not read, as the inventory says it (no key, no response body). */
/** At most this many gaps a pass report lists (a ledger may have thousands of unreadable entries). */
export const MAX_GAPS_IN_PASS_REPORT = 200;

export const PassGapSchema = z.object({
  source: z.string(),
  origin: z.string().nullable(),
  message: z.string(),
});
export type PassGap = z.infer<typeof PassGapSchema>;

/** A run of failed passes, as the report of the last one keeps it (the next pass reads it there). */
export const FailingSchema = z.object({
  passes: z.number(),
  /** When the first of them started. */
  since: z.string(),
  /** The failure the webhook last took (its redacted reason, the pass's start); null when none. */
  told: z.object({ reason: z.string(), at: z.string() }).nullable(),
});
export type Failing = z.infer<typeof FailingSchema>;

export const PassReportSchema = z.object({
  policyFile: z.string(),
  operator: z.string(),
  mode: z.enum(PASS_MODES),
  startedAt: z.string(),
  finishedAt: z.string(),
  /** Why the pass ended before its end: the stop file, or a signal. */
  stopped: z.enum(["stop-file", "signal"]).nullable(),
  plan: PassPlanSchema.nullable(),
  results: z.array(PassResultSchema),
  /** Quarantines whose due destroy this pass finished, by outcome (`destroyed`, `kept`…). */
  quarantinesDue: z.record(z.string(), z.number()),
  /** Interrupted jobs of earlier passes this pass resumed. */
  resumedJobs: z.array(z.string()),
  /**
   * Interrupted jobs this pass left unresumed though they may be its policy's: a job whose plan the
   * audit log says was made under the policy's operator but that this data directory did not note
   * taking (it may be a person's), one it took that ran with the override (a resume would carry the
   * override on), and one whose plan a cut read of the audit log did not reach. Absent when the pass did
   * not look for jobs to resume, and in a report kept before it was said.
   */
  unjudgedJobs: z.array(z.string()).optional(),
  /**
   * Null when the pass made no plan (its scan or its plan failed, or it stopped first): what it would
   * have selected is unknown, not none.
   */
  counts: z
    .object({
      selected: z.number(),
      wouldAct: z.number(),
      done: z.number(),
      failed: z.number(),
      skipped: z.number(),
      /** Selected now and not in the previous pass's selection. */
      new: z.number(),
    })
    .nullable(),
  /**
   * The parts of the sources the scan it planned over could not read (an environment's lease list, a
   * ledger entry): the plan selected among the rows read only. Null when it made no plan, or when the
   * inventory held by then was not the one it planned over; absent in a report kept before it was said.
   */
  gaps: z.array(PassGapSchema).nullable().optional(),
  /**
   * How many parts the scan could not read, all of them: `gaps` lists the first of them only (at most
   * `MAX_GAPS_IN_PASS_REPORT`). Null when `gaps` is; absent in a report kept before it was said.
   */
  gapCount: z.number().int().min(0).nullable().optional(),
  /**
   * The failed passes in a row of this policy file, this one the last (a stopped pass neither continues
   * nor ends the run, and keeps it as it was): from the first one's start, and the failure the webhook
   * last took of them, to tell a failure that goes on from one that starts. Null when no run is open (this
   * pass succeeded, or none had failed); absent in a report kept before it was said.
   */
  failing: FailingSchema.nullable().optional(),
  /** The failed passes in a row this pass, the first to succeed after them, ended; null when none. */
  recovered: z.object({ passes: z.number(), since: z.string() }).nullable().optional(),
  /**
   * The webhook's answer (never its URL); null when none is configured or nothing was to be said.
   * `skipped` says why it was not sent: the same failure it was told of already.
   */
  webhook: z
    .object({
      sent: z.boolean(),
      status: z.number().nullable(),
      error: z.string().nullable(),
      skipped: z.string().optional(),
    })
    .nullable(),
  /** Why the pass failed, one sentence passed through the redactor (with `counts` null: before it planned). */
  error: z.string().nullable(),
});
export type PassReport = z.infer<typeof PassReportSchema>;

/** Said beside a pass's counts when its scan had gaps: the plan selected only among the rows read. */
export function unreadSentence(gaps: number): string {
  return `selected among the rows read; ${gaps} ${gaps === 1 ? "part" : "parts"} of the sources could not be read`;
}

/** Said beside a pass's counts when the gaps of the scan it planned over are not known. */
export const UNREAD_UNKNOWN =
  "whether the sources were read whole is not known: another scan finished meanwhile";
