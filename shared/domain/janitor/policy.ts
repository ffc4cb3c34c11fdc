import { z } from "zod";
import {
  HEADLINES,
  KNOWN_LEASE_POLICIES,
  KNOWN_LEASE_STATUSES,
  OWNERSHIP_CODES,
  PROVIDER_CODES,
  ROW_FLAGS,
} from "../codes.js";
import { MARKER_ANSWERS } from "../marker-proof.js";
import { QUARANTINE_MAX_HOURS } from "../quarantine.js";
import { DURATION_MESSAGE, DURATION_PATTERN } from "./duration.js";

/**
 * The janitor's policy file: who it acts as, and rules, each a selector and an action. Every object is
 * strict, so a misspelt key is an error instead of a clause quietly left out (a selector missing a clause
 * selects more, never less); every list names the project's own vocabulary, so a misspelt code is an
 * error too. Rules are judged in order and the first rule to select a sandbox is the one that acts on it.
 */

export const JANITOR_ACTIONS = ["quarantine", "destroy", "release"] as const;
export type JanitorAction = (typeof JANITOR_ACTIONS)[number];

export const CANDIDATE_KINDS = ["lease", "untracked"] as const;
export type CandidateKind = (typeof CANDIDATE_KINDS)[number];

/**
 * What a selector may ask of a sandbox's latest marker proof: one of the judge's answers, `none` (no
 * proof is kept for it), or `ended-lease`: the proof shows the sandbox is an ended lease's and nobody
 * else's, the same reading a forced destroy needs (`forced-destroy-proof.ts`).
 */
export const PROOF_SELECTORS = [...MARKER_ANSWERS, "none", "ended-lease"] as const;
export type ProofSelector = (typeof PROOF_SELECTORS)[number];

/** With no `caps` in the file: at most this many actions in one pass, and in any hour. */
export const DEFAULT_CAPS = { perPass: 20, perHour: 60 } as const;

const MAX_COUNT = 10_000;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(", ")}`;

function choices<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .array(z.enum(values, { error: oneOf(values) }), { error: "must be a list" })
    .min(1, { error: "must name at least one value (leave the clause out to match any)" });
}

const names = z
  .array(z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }).max(500), {
    error: "must be a list",
  })
  .min(1, { error: "must name at least one value (leave the clause out to match any)" });

const duration = z.string({ error: DURATION_MESSAGE }).regex(DURATION_PATTERN, { error: DURATION_MESSAGE });

const count = z
  .number({ error: "must be a whole number" })
  .int({ error: "must be a whole number" })
  .min(1, { error: "must be at least 1" })
  .max(MAX_COUNT, { error: `must be at most ${MAX_COUNT}` });

export const FlagsSelectorSchema = z
  .strictObject({ allOf: choices(ROW_FLAGS).optional(), noneOf: choices(ROW_FLAGS).optional() })
  .superRefine((flags, context) => {
    if (flags.allOf === undefined && flags.noneOf === undefined) {
      context.addIssue({ code: "custom", message: "must name allOf, noneOf or both" });
    }
    for (const flag of flags.allOf ?? []) {
      if (flags.noneOf?.includes(flag)) {
        context.addIssue({
          code: "custom",
          path: ["noneOf"],
          message: `${flag} is in both allOf and noneOf, so the rule could select nothing`,
        });
      }
    }
  });

/** Older than: each names the moment its age counts from. `created` is the sandbox's, as CreateOS lists it. */
export const AgeSelectorSchema = z
  .strictObject({
    acquired: duration.optional(),
    released: duration.optional(),
    lastUsed: duration.optional(),
    created: duration.optional(),
  })
  .superRefine((age, context) => {
    if (Object.values(age).every((value) => value === undefined)) {
      context.addIssue({ code: "custom", message: "must name acquired, released, lastUsed or created" });
    }
  });

/** Clauses only a lease row has: an untracked sandbox never matches them. */
export const LEASE_ONLY_CLAUSES = [
  "headline",
  "ownership",
  "flags",
  "environment",
  "company",
  "status",
  "leasePolicy",
] as const;
const LEASE_ONLY_AGES = ["acquired", "released", "lastUsed"] as const;

/**
 * Every clause present must match (and); a list matches when any of its values does (or). An
 * `environment` or `company` value is an id or a name, compared exactly.
 */
export const SelectorSchema = z
  .strictObject({
    kind: z.enum(CANDIDATE_KINDS, { error: oneOf(CANDIDATE_KINDS) }).optional(),
    headline: choices(HEADLINES).optional(),
    ownership: choices(OWNERSHIP_CODES).optional(),
    flags: FlagsSelectorSchema.optional(),
    environment: names.optional(),
    company: names.optional(),
    status: choices(KNOWN_LEASE_STATUSES).optional(),
    leasePolicy: choices(KNOWN_LEASE_POLICIES).optional(),
    age: AgeSelectorSchema.optional(),
    shape: names.optional(),
    provider: choices(PROVIDER_CODES).optional(),
    proof: choices(PROOF_SELECTORS).optional(),
  })
  .superRefine((select, context) => {
    if (Object.values(select).every((value) => value === undefined)) {
      context.addIssue({
        code: "custom",
        message: "must name at least one clause: a rule never selects every sandbox",
      });
    }
    const headlines = select.headline ?? [];
    if (headlines.length > 0 && headlines.every((headline) => headline === "closed")) {
      context.addIssue({
        code: "custom",
        path: ["headline"],
        message:
          "closed is history, which no rule selects (the lease is over and nothing of it lives at CreateOS): this rule would select nothing",
      });
    }
    if (select.kind !== "untracked") return;
    for (const clause of LEASE_ONLY_CLAUSES) {
      if (select[clause] !== undefined) {
        context.addIssue({
          code: "custom",
          path: [clause],
          message: `an untracked sandbox has no lease row, so no ${clause}: this rule would select nothing`,
        });
      }
    }
    for (const moment of LEASE_ONLY_AGES) {
      if (select.age?.[moment] !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["age", moment],
          message: `an untracked sandbox has no lease row, so it was never ${moment}: use age.created`,
        });
      }
    }
  });

export const RuleSchema = z
  .strictObject({
    name: z
      .string({ error: "must be a string" })
      .min(1, { error: "must not be empty" })
      .max(100, { error: "must be at most 100 characters" }),
    select: SelectorSchema,
    action: z.enum(JANITOR_ACTIONS, { error: oneOf(JANITOR_ACTIONS) }),
    quarantineHours: z
      .number({ error: `must be a number of hours, above 0 and at most ${QUARANTINE_MAX_HOURS}` })
      .gt(0, { error: `must be a number of hours, above 0 and at most ${QUARANTINE_MAX_HOURS}` })
      .max(QUARANTINE_MAX_HOURS, {
        error: `must be a number of hours, above 0 and at most ${QUARANTINE_MAX_HOURS}`,
      })
      .optional(),
    maxPerHour: count.optional(),
    maxPerPass: count.optional(),
  })
  .superRefine((rule, context) => {
    if (rule.action === "quarantine" && rule.quarantineHours === undefined) {
      context.addIssue({
        code: "custom",
        path: ["quarantineHours"],
        message: "a quarantine rule must say how many hours the sandbox waits before its destroy",
      });
    }
    if (rule.action !== "quarantine" && rule.quarantineHours !== undefined) {
      context.addIssue({
        code: "custom",
        path: ["quarantineHours"],
        message: `only a quarantine rule waits; a ${rule.action} rule acts at once`,
      });
    }
    if (rule.action === "release" && rule.select.kind === "untracked") {
      context.addIssue({
        code: "custom",
        path: ["action"],
        message: "an untracked sandbox has no lease to release: quarantine or destroy it",
      });
    }
  });

export const CapsSchema = z.strictObject({
  /** Actions in one pass, over every rule. */
  perPass: count.optional(),
  /** Actions in any hour, over every rule and pass. */
  perHour: count.optional(),
});

/**
 * Where a pass that acted or found something new is announced, and failures as they start, change and
 * end (a Slack-compatible incoming webhook).
 */
export const WebhookSchema = z.strictObject({
  url: z.string({ error: "must be an http(s) URL" }).refine(isWebhookUrl, {
    error: "must be an https URL (http only on localhost, 127.0.0.1 or ::1)",
  }),
});

export const PolicySchema = z
  .strictObject({
    version: z.literal(1, { error: "must be 1" }),
    operator: z
      .string({ error: "must name the operator the janitor acts as" })
      .trim()
      .min(1, { error: "must name the operator the janitor acts as" })
      .max(200, { error: "must be at most 200 characters" }),
    rules: z.array(RuleSchema, { error: "must be a list of rules" }),
    caps: CapsSchema.optional(),
    webhook: WebhookSchema.optional(),
    /** How long `watch` waits between passes (`--interval` wins); 5m when left out. */
    interval: duration.optional(),
  })
  .superRefine((policy, context) => {
    const seen = new Map<string, number>();
    policy.rules.forEach((rule, index) => {
      const first = seen.get(rule.name);
      if (first === undefined) seen.set(rule.name, index);
      else {
        context.addIssue({
          code: "custom",
          path: ["rules", index, "name"],
          message: `rules[${first}] has this name already; each rule needs its own, the audit log counts by it`,
        });
      }
    });
  });

export type FlagsSelector = z.infer<typeof FlagsSelectorSchema>;
export type AgeSelector = z.infer<typeof AgeSelectorSchema>;
export type Selector = z.infer<typeof SelectorSchema>;
export type Rule = z.infer<typeof RuleSchema>;
export type Caps = z.infer<typeof CapsSchema>;
export type Policy = z.infer<typeof PolicySchema>;

/** The caps a pass applies: the file's, and the defaults for what it leaves out. */
export function effectiveCaps(policy: Pick<Policy, "caps">): { perPass: number; perHour: number } {
  return {
    perPass: policy.caps?.perPass ?? DEFAULT_CAPS.perPass,
    perHour: policy.caps?.perHour ?? DEFAULT_CAPS.perHour,
  };
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isWebhookUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username !== "" || url.password !== "") return false;
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
}
