import { z } from "zod";
import {
  ACTION_KINDS,
  DESTROY_CONFIRMATIONS,
  HEADLINES,
  OWNERSHIP_CODES,
  PROVIDER_CODES,
  ROW_FLAGS,
} from "./codes.js";
import { StorableIdSchema } from "./paperclip.js";

/**
 * Guarded actions: what an operator selects, the plan main freezes from it, the job that executes the
 * plan, and the audit entries it leaves. Schemas double as the runtime check on the contract boundary.
 */

// Ids an operator names end up in the journal and the audit log, so they must survive storage exactly.
const sandboxIdField = StorableIdSchema;
const leaseIdField = StorableIdSchema;

export const ActionSelectionSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("leases"), leaseIds: z.array(leaseIdField).min(1).max(50_000) }),
  z.strictObject({
    kind: z.literal("headline"),
    headlines: z.array(z.enum(HEADLINES)).min(1),
    environmentIds: z.array(z.string().min(1).max(200)).max(10_000).optional(),
  }),
  z.strictObject({
    kind: z.literal("untracked"),
    credential: z.string().min(1).max(200),
    sandboxIds: z.array(sandboxIdField).max(50_000).optional(),
  }),
]);
export type ActionSelection = z.infer<typeof ActionSelectionSchema>;

export const PlanRequestSchema = z.strictObject({
  action: z.enum(ACTION_KINDS),
  selection: ActionSelectionSchema,
});
export type PlanRequest = z.infer<typeof PlanRequestSchema>;

/** What executing an item will do at CreateOS: release pauses (reuseLease) or deletes; destroy deletes. */
export const ACTION_EFFECTS = ["pause", "delete"] as const;
export type ActionEffect = (typeof ACTION_EFFECTS)[number];

export const VerdictSnapshotSchema = z.object({
  headline: z.enum(HEADLINES),
  ownership: z.array(z.enum(OWNERSHIP_CODES)),
  provider: z.enum(PROVIDER_CODES),
  flags: z.array(z.enum(ROW_FLAGS)),
});
export type VerdictSnapshot = z.infer<typeof VerdictSnapshotSchema>;

/** Why a destroy is forced (needs the sandbox id typed back): the plugin would not act on it itself. */
export const FORCED_REASONS = [
  "foreign-provider",
  "foreign-company",
  "foreign-environment",
  "company-scope-mismatch",
  "metadata-missing",
  "api-url-changed",
  "api-url-not-origin",
  "config-rejected",
  "environment-unread",
  "untracked",
] as const;
export type ForcedReasonCode = (typeof FORCED_REASONS)[number];

/**
 * One reason, with both values whole so that they can be compared: what the lease's metadata records,
 * and what the row or the environment it is listed under says instead, each with its name when the
 * sources give one. Both are null where there is nothing to compare (an untracked sandbox).
 */
export const ForcedReasonSchema = z.object({
  code: z.enum(FORCED_REASONS),
  recorded: z.string().nullable(),
  recordedName: z.string().nullable(),
  expected: z.string().nullable(),
  expectedName: z.string().nullable(),
});
export type ForcedReason = z.infer<typeof ForcedReasonSchema>;

/**
 * Why an action needs the override: a run using the sandbox, a login session on it, another live row
 * naming it, or a part of the sources not read that may name it (the plan's own, never a verdict's).
 */
export const OVERRIDE_REASONS = ["in-use", "login-session", "shared", "unread-part"] as const;
export type OverrideReason = (typeof OVERRIDE_REASONS)[number];

export const PlanItemSchema = z.object({
  itemId: z.string(),
  /** null for an untracked sandbox, which no lease row names. */
  leaseId: z.string().nullable(),
  sourceId: z.string().nullable(),
  environmentId: z.string().nullable(),
  environmentName: z.string().nullable(),
  companyId: z.string().nullable(),
  /** The company's name as the sources give it; absent in plans made before names were carried. */
  companyName: z.string().nullable().optional(),
  sandboxId: z.string().nullable(),
  origin: z.string().nullable(),
  credential: z.string().nullable(),
  decision: z.enum(["do", "skip"]),
  effect: z.enum(ACTION_EFFECTS).nullable(),
  confirmation: z.enum(DESTROY_CONFIRMATIONS).nullable(),
  requiresOverride: z.boolean(),
  /** Machine reason (a verdict code or a guard name) and the sentence shown to the operator. */
  skipReason: z.string().nullable(),
  skipMessage: z.string().nullable(),
  /** For a forced destroy, every reason it is forced; absent otherwise. */
  forcedBecause: z.array(ForcedReasonSchema).optional(),
  /**
   * For an item to be done while a part of the sources not read may name its sandbox: why it needs the
   * override, with the part; absent otherwise (and in plans made before it was said).
   */
  caution: z.string().optional(),
  /**
   * Why the item needs the override, as a code (the caution and the skip sentence are its words); null
   * when it needs none. Absent in plans made before it was said.
   */
  overrideReason: z.enum(OVERRIDE_REASONS).nullable().optional(),
  /** With `caution`: the part of the sources not read that may name the sandbox, as the scan's gap says it. */
  unreadPart: z.object({ source: z.string(), message: z.string() }).optional(),
  verdict: VerdictSnapshotSchema,
  /** Hash of row metadata, status, cleanup fields and provider status at plan time. */
  fingerprint: z.string(),
});
export type PlanItem = z.infer<typeof PlanItemSchema>;

export const PlanBreakdownSchema = z.object({
  headline: z.enum(HEADLINES),
  environmentId: z.string().nullable(),
  environmentName: z.string().nullable(),
  count: z.number().int(),
});
export type PlanBreakdown = z.infer<typeof PlanBreakdownSchema>;

export const COUNT_CONFIRMATION_REASONS = ["ok-sandboxes", "over-threshold"] as const;

export const PlanSchema = z.object({
  planId: z.string(),
  action: z.enum(ACTION_KINDS),
  createdAt: z.string(),
  expiresAt: z.string(),
  operator: z.string(),
  items: z.array(PlanItemSchema),
  counts: z.object({
    do: z.number().int(),
    skip: z.number().int(),
    pause: z.number().int(),
    delete: z.number().int(),
    typedId: z.number().int(),
    needsOverride: z.number().int(),
    skippedByReason: z.record(z.string(), z.number().int()),
  }),
  origins: z.array(
    z.object({
      origin: z.string(),
      credential: z.string(),
      items: z.number().int(),
      /** How many sandboxes the credential listed when the plan was made (sizes the re-check reads). */
      listedSandboxes: z.number().int().optional(),
    }),
  ),
  /**
   * For a selection with forced destroys, the phrase an operator types instead of every id
   * (environment name plus count); core accepts it as the typed confirmation for all typed-id items.
   */
  confirmationPhrase: z.string().nullable(),
  /** What will be done, by headline and environment ("150 ok, 3 stale in Agents"), largest first. */
  breakdown: z.array(PlanBreakdownSchema).optional(),
  /**
   * Set when the plan needs the count typed back ("destroy 248"): it destroys an `ok` sandbox, or more
   * items than the threshold. The count is what will be acted on, with or without the override.
   */
  countConfirmation: z
    .object({ reasons: z.array(z.enum(COUNT_CONFIRMATION_REASONS)), threshold: z.number().int() })
    .nullable()
    .optional(),
});
export type Plan = z.infer<typeof PlanSchema>;

/** A plan the operator closed without running it: it can never run afterwards. */
export const PlanCancellationSchema = z.object({
  planId: z.string(),
  cancelledAt: z.string(),
  /** Who cancelled it, as the audit log names operators. */
  operator: z.string(),
});
export type PlanCancellation = z.infer<typeof PlanCancellationSchema>;

export const ExecuteRequestSchema = z.strictObject({
  planId: z.string().min(1).max(200),
  confirmSandboxIds: z.array(sandboxIdField).max(50_000).default([]),
  confirmationPhrase: z.string().max(1000).optional(),
  /** The count typed back for a plan that needs it: "destroy 248". */
  typedCount: z.string().max(100).optional(),
  override: z.boolean().default(false),
  /**
   * The items the operator kept, when some were removed before confirming; left out, the whole plan.
   * Main acts on these alone and asks the confirmation they need on their own.
   */
  keepItemIds: z.array(z.string().min(1).max(200)).max(50_000).optional(),
});
export type ExecuteRequest = z.infer<typeof ExecuteRequestSchema>;

export const JOB_ITEM_STATES = [
  "pending",
  "running",
  "confirmed",
  "unconfirmed",
  "failed",
  "skipped",
  "cancelled",
] as const;
export type JobItemState = (typeof JOB_ITEM_STATES)[number];

export const JOB_STATES = ["running", "completed", "cancelled", "interrupted"] as const;
export type JobState = (typeof JOB_STATES)[number];

export const JobItemSchema = z.object({
  itemId: z.string(),
  leaseId: z.string().nullable(),
  sandboxId: z.string().nullable(),
  origin: z.string().nullable(),
  effect: z.enum(ACTION_EFFECTS).nullable(),
  state: z.enum(JOB_ITEM_STATES),
  /** e.g. changed-since-plan, cleanup-in-progress, not-confirmed-typed-id, http-503. */
  reason: z.string().nullable(),
  message: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type JobItem = z.infer<typeof JobItemSchema>;

export const JobSchema = z.object({
  jobId: z.string(),
  planId: z.string(),
  action: z.enum(ACTION_KINDS),
  state: z.enum(JOB_STATES),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** A job created by retry-failed or resume names the job it continues. */
  parentJobId: z.string().nullable(),
  items: z.array(JobItemSchema),
  counts: z.record(z.enum(JOB_ITEM_STATES), z.number().int()),
});
export type Job = z.infer<typeof JobSchema>;

export const JobEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("item"),
    jobId: z.string(),
    action: z.enum(ACTION_KINDS),
    /** The operator the job runs for, as the audit log names them. */
    operator: z.string(),
    item: JobItemSchema,
  }),
  z.object({ type: z.literal("job"), jobId: z.string(), state: z.enum(JOB_STATES) }),
]);
export type JobEvent = z.infer<typeof JobEventSchema>;

export const AUDIT_KINDS = ["plan", "item"] as const;
/**
 * What an audit entry records: a guarded action, a lease repair written to Paperclip's database, or a
 * step of a quarantine.
 */
export const AUDIT_ACTIONS = [...ACTION_KINDS, "repair", "quarantine"] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export const CONFIRMATION_METHODS = [...DESTROY_CONFIRMATIONS, "typed-count", "phrase"] as const;
export type ConfirmationMethod = (typeof CONFIRMATION_METHODS)[number];

export const AuditEntrySchema = z.object({
  id: z.number().int(),
  at: z.string(),
  kind: z.enum(AUDIT_KINDS),
  operator: z.string(),
  host: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  planId: z.string(),
  jobId: z.string().nullable(),
  leaseId: z.string().nullable(),
  sandboxId: z.string().nullable(),
  origin: z.string().nullable(),
  environmentId: z.string().nullable(),
  companyId: z.string().nullable(),
  verdict: VerdictSnapshotSchema.nullable(),
  /** The row metadata the verdict was judged on, with the workspace marker redacted. */
  evidence: z.record(z.string(), z.unknown()).nullable(),
  /** How the operator confirmed the item: a click, its id typed back, the count typed back, the plan's phrase. */
  confirmation: z.enum(CONFIRMATION_METHODS).nullable(),
  override: z.boolean(),
  outcome: z.string(),
  httpStatus: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  message: z.string().nullable(),
  /** Added by the action engine: which plan item, what it did, why it ended as it did. */
  itemId: z.string().nullable().optional(),
  environmentName: z.string().nullable().optional(),
  credential: z.string().nullable().optional(),
  effect: z.enum(ACTION_EFFECTS).nullable().optional(),
  reason: z.string().nullable().optional(),
  /**
   * An action item's: whether its request left, in this job or a run of the job it continues (the
   * journal's mark, written before a request leaves). Null or absent on every other entry, and on an
   * item recorded before the mark was audited: whether that one's request left is not known.
   */
  sent: z.boolean().nullable().optional(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditQuerySchema = z.strictObject({
  since: z.string().datetime({ offset: true }).optional(),
  until: z.string().datetime({ offset: true }).optional(),
  environmentId: z.string().max(200).optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  outcome: z.string().max(100).optional(),
  limit: z.number().int().min(1).max(10_000).default(500),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;
