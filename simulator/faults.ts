import { z } from "zod";
import { error, fail, type Reply } from "./http/reply.js";
import { type Random, seededRandom } from "./random.js";

// Rules that make the simulator misbehave the way a real control plane and network do: error
// statuses, slowness, dropped sockets and requests that never get an answer. Probabilities use a
// seeded random source, so a test sees the same sequence of faults on every run.

const FaultRuleSchema = z
  .strictObject({
    id: z.string().optional(),
    method: z.string().min(1).optional(),
    path: z.string().refine(isRegExpSource, { error: "expected a regular expression source" }),
    apiKey: z.string().optional(),
    status: z.int().min(400).max(599).optional(),
    retryAfterSeconds: z.int().min(0).optional(),
    probability: z.number().min(0).max(1).optional(),
    count: z.int().positive().optional(),
    latencyMs: z.int().min(0).optional(),
    drop: z.literal(true).optional(),
    hang: z.literal(true).optional(),
  })
  .refine((rule) => rule.status !== undefined || rule.latencyMs !== undefined || rule.drop || rule.hang, {
    error: "a rule needs at least one of status, latencyMs, drop or hang",
  })
  .refine((rule) => [rule.status !== undefined, rule.drop, rule.hang].filter(Boolean).length <= 1, {
    error: "status, drop and hang are alternatives: choose one",
  });

export type FaultRule = z.input<typeof FaultRuleSchema>;

export const FaultRulesSchema = z.array(FaultRuleSchema);

/** The request a rule is matched against: its pathname, not its query. */
export interface FaultProbe {
  method: string;
  pathname: string;
  apiKey?: string;
}

interface ActiveRule {
  rule: FaultRule;
  pattern: RegExp;
  remaining: number;
}

export class FaultInjector {
  private rules: ActiveRule[] = [];
  private random: Random;

  constructor(private readonly seed: number) {
    this.random = seededRandom(seed);
  }

  /** Replaces every rule and restarts the random sequence, so the same rules fire the same way. */
  replace(rules: unknown): void {
    const parsed = FaultRulesSchema.parse(rules);
    this.rules = parsed.map((rule) => ({
      rule,
      pattern: new RegExp(rule.path),
      remaining: rule.count ?? Number.POSITIVE_INFINITY,
    }));
    this.random = seededRandom(this.seed);
  }

  /** The rules still armed, with `count` showing what is left of each. */
  current(): FaultRule[] {
    return this.rules.map(({ rule, remaining }) =>
      Number.isFinite(remaining) ? { ...rule, count: remaining } : { ...rule },
    );
  }

  /** The first rule that matches and fires for this request; firing uses up one of its `count`. */
  pick(probe: FaultProbe): FaultRule | undefined {
    for (const active of this.rules) {
      const { rule } = active;
      if (rule.method && rule.method.toUpperCase() !== probe.method) continue;
      if (rule.apiKey !== undefined && rule.apiKey !== probe.apiKey) continue;
      if (!active.pattern.test(probe.pathname)) continue;
      if (rule.probability !== undefined && this.random.next() >= rule.probability) continue;
      active.remaining -= 1;
      if (active.remaining <= 0) this.rules = this.rules.filter((other) => other !== active);
      return rule;
    }
    return undefined;
  }
}

/** The answer an injected status gets: the body the real API sends for it, and Retry-After where due. */
export function faultReply(status: number, retryAfterSeconds = 1): Reply {
  const retryAfter = { "retry-after": String(retryAfterSeconds) };
  switch (status) {
    case 401:
      return fail(401, "invalid api key");
    case 402:
      return fail(402, { credit: "insufficient credit" });
    case 403:
      return fail(403, "forbidden");
    case 404:
      return fail(404, "sandbox not found");
    case 429:
      return fail(429, { rate_limit: "too many requests" }, retryAfter);
    case 503:
      return error(503, "no host with capacity", retryAfter);
    default:
      return status >= 500 ? error(status, "internal error") : fail(status, { fault: `injected ${status}` });
  }
}

function isRegExpSource(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
