import { z } from "zod";
import { MARKER_ANSWERS } from "../marker-proof.js";
import type { CandidateTarget } from "./candidate.js";
import { EXCLUSION_REASONS } from "./exclusions.js";
import { JANITOR_ACTIONS } from "./policy.js";

/**
 * What one pass of a policy would do: per rule, what it selects and why, and what it would select but
 * skips and why. A dry run writes exactly this to the audit log and its report, and the app shows it as
 * "what it would do next"; a pass that acts acts on `selected` and nothing else. A schema, so the plan can
 * cross to the renderer and back out of the store checked.
 */

export const SKIP_REASONS = [
  ...EXCLUSION_REASONS,
  /** The verdict refuses the action (the plugin refuses a foreign release, a gone sandbox…). */
  "action-refused",
  /** A forced destroy without a marker proof that the sandbox is an ended lease's and nobody else's. */
  "needs-marker-proof",
  /** An open quarantine holds the sandbox already: it is paused, and its destroy is due in time. */
  "in-quarantine",
  /** An earlier rule selected this sandbox; it is acted on once, by the first rule. */
  "already-selected",
  "cap-reached",
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const CAP_NAMES = ["rule-per-pass", "rule-per-hour", "policy-per-pass", "policy-per-hour"] as const;
export type CapName = (typeof CAP_NAMES)[number];

export const CandidateTargetSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("lease"),
    sourceId: z.string(),
    leaseId: z.string(),
    sandboxId: z.string().nullable(),
    origin: z.string().nullable(),
    credential: z.string().nullable(),
    environmentName: z.string().nullable(),
  }),
  z.object({
    kind: z.literal("untracked"),
    sandboxId: z.string(),
    origin: z.string(),
    credential: z.string(),
    uncertain: z.boolean(),
  }),
]) satisfies z.ZodType<CandidateTarget>;

/** The marker proof a forced item was judged on (never the marker: the proof holds only its prefix). */
export const ProofReadingSchema = z.object({
  proves: z.boolean(),
  answer: z.enum(MARKER_ANSWERS).nullable(),
  readAt: z.string().nullable(),
  message: z.string(),
});

export const SkipSchema = z.object({
  reason: z.enum(SKIP_REASONS),
  message: z.string(),
  /** For `already-selected`: the rule that has it. */
  byRule: z.string().optional(),
  /** For `cap-reached`: which cap held it back. */
  cap: z.enum(CAP_NAMES).optional(),
  /** For `action-refused`: the guard's own reason code. */
  refusal: z.string().optional(),
});

export const PassItemSchema = z.object({
  target: CandidateTargetSchema,
  /** The selector's clauses that matched, in the operator's words. */
  clauses: z.array(z.string()),
  /** A destroy (or a quarantine, which ends in one) of a row this environment does not own, or of an untracked sandbox. */
  forced: z.boolean(),
  /** Set for a forced item: the proof it needs, as read. */
  proof: ProofReadingSchema.nullable(),
  /** Null when selected. */
  skip: SkipSchema.nullable(),
});

export const RulePlanSchema = z.object({
  rule: z.string(),
  action: z.enum(JANITOR_ACTIONS),
  quarantineHours: z.number().nullable(),
  selected: z.array(PassItemSchema),
  skipped: z.array(PassItemSchema),
});

export const PassPlanSchema = z.object({
  operator: z.string(),
  plannedAt: z.string(),
  inventoryGeneratedAt: z.string(),
  caps: z.object({
    perPass: z.number(),
    perHour: z.number(),
    /** Actions the history counts in the hour before `plannedAt`. */
    usedThisHour: z.number(),
  }),
  rules: z.array(RulePlanSchema),
  counts: z.object({
    selected: z.number(),
    skipped: z.number(),
    byAction: z.record(z.enum(JANITOR_ACTIONS), z.number()),
    bySkipReason: z.partialRecord(z.enum(SKIP_REASONS), z.number()),
  }),
});

/** One action a pass took, as the janitor's history keeps it, so a cap per hour holds across passes. */
export const PastActionSchema = z.object({
  rule: z.string(),
  action: z.enum(JANITOR_ACTIONS),
  /** When it was acted on, ISO. */
  at: z.string(),
  sandboxId: z.string().nullable().optional(),
});

export type Skip = z.infer<typeof SkipSchema>;
export type PassItem = z.infer<typeof PassItemSchema>;
export type RulePlan = z.infer<typeof RulePlanSchema>;
export type PassPlan = z.infer<typeof PassPlanSchema>;
export type PastAction = z.infer<typeof PastActionSchema>;
