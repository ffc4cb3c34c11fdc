import { z } from "zod";
import { PassGapSchema, PassPlanSchema, PassReportSchema } from "../domain/janitor/index.js";

/**
 * The janitor as the app sees it: the policy's last pass, what a pass would do next, and one pass run
 * from the app. The renderer never names a policy file: main reads the one the config names
 * (`policyFile`), and says so when there is none or it does not read as a policy.
 */

/** The words an operator types back before the app runs an acting pass: the policy's operator named. */
export function janitorActPhrase(operator: string): string {
  return `act as ${operator}`;
}

/** Why there is no plan: no policy file configured, or one that does not read as a policy. */
const NoPolicySchema = z.object({
  state: z.literal("no-policy"),
  message: z.string(),
});
const InvalidPolicySchema = z.object({
  state: z.literal("invalid"),
  policyFile: z.string(),
  /** Line, column and field of each problem, as `watch` prints them (the first few). */
  problems: z.array(z.string()).max(20),
});

export const JanitorStatusSchema = z.object({
  /** The policy file the config names (absolute), or null. */
  policyFile: z.string().nullable(),
  /** The last pass any runner of this data directory kept (`watch` or the app); null: no pass yet. */
  lastPass: PassReportSchema.nullable(),
});
export type JanitorStatus = z.infer<typeof JanitorStatusSchema>;

/**
 * What the inventory a plan was made over could not read: the plan selects only among the rows read, so
 * an unread environment's leases, or an account's sandboxes CreateOS did not list, are in no rule's list.
 */
export const PlanUnreadSchema = z.object({
  /** The sources' gaps, each with the environment whose leases it left unread, when it names one. */
  gaps: z.array(
    PassGapSchema.extend({
      environment: z.object({ id: z.string(), name: z.string() }).nullable(),
    }),
  ),
  /**
   * How many gaps the scan had in all: the inventory view lists the first of them, so `gaps` may be
   * fewer.
   */
  gapCount: z.number().int().nonnegative(),
  /** The CreateOS accounts the scan could not list, and why, when it knows (`unauthorized`, `network`…). */
  accounts: z.array(z.object({ credential: z.string(), origin: z.string(), reason: z.string().nullable() })),
});
export type PlanUnread = z.infer<typeof PlanUnreadSchema>;

export const JanitorPlanSchema = z.discriminatedUnion("state", [
  NoPolicySchema,
  InvalidPolicySchema,
  z.object({
    state: z.literal("planned"),
    policyFile: z.string(),
    /** What the operator types back to run an acting pass of this policy from the app. */
    actPhrase: z.string(),
    /**
     * The policy as read for this plan, digested: an acting pass sends it back and runs only while the
     * policy file still reads as the same rules, so the phrase confirms the rules the operator was shown.
     */
    policyDigest: z.string(),
    plan: PassPlanSchema,
    /**
     * What the inventory it planned over could not read; null when the inventory main holds by the time
     * it is asked is another scan's (one finished in between), so what that one left unread is not known.
     */
    unread: PlanUnreadSchema.nullable(),
  }),
]);
export type JanitorPlan = z.infer<typeof JanitorPlanSchema>;

export const JanitorRunRequestSchema = z
  .strictObject({
    /** Act on what the rules select; left out, a dry run (each plan recorded and cancelled). */
    act: z.boolean().optional(),
    /** For an acting pass: the phrase typed back (`act as <the policy's operator>`). */
    confirm: z.string().max(300).optional(),
    /** For an acting pass: the `policyDigest` of the plan the operator was shown. */
    policyDigest: z.string().max(100).optional(),
  })
  .refine((request) => request.act !== true || (request.confirm ?? "").trim() !== "", {
    error: "an acting pass needs its confirmation phrase typed back",
    path: ["confirm"],
  })
  .refine((request) => request.act !== true || (request.policyDigest ?? "") !== "", {
    error: "an acting pass needs the digest of the plan it confirms",
    path: ["policyDigest"],
  });

export const JanitorRunSchema = z.discriminatedUnion("state", [
  NoPolicySchema,
  InvalidPolicySchema,
  z.object({ state: z.literal("ran"), report: PassReportSchema }),
]);
export type JanitorRun = z.infer<typeof JanitorRunSchema>;
