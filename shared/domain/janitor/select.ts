import { PROVIDER_CODES } from "../codes.js";
import { metadataObject, recorded } from "../lease-metadata.js";
import type { MarkerProof } from "../marker-proof.js";
import { candidateProofKey, type JanitorCandidate } from "./candidate.js";
import { durationMs, formatAge } from "./duration.js";
import { readProof, type ScanNow } from "./forced-destroy-proof.js";
import type { AgeSelector, Selector } from "./policy.js";

/** What a selector is judged against besides the candidate itself; each kept proof is read against the scan. */
export interface SelectionContext extends ScanNow {
  now: Date;
  /** Company names by id, so a selector may name a company either way. */
  companyNames: ReadonlyMap<string, string>;
  /** The newest marker proof of each subject, by `proofKey`. */
  proofs: ReadonlyMap<string, MarkerProof>;
}

/** Whether a selector matches, and if it does, each clause that did, in the operator's words. */
export type Selection = { matches: true; clauses: string[] } | { matches: false };

type Clause = string | null;

const NO_MATCH: Selection = { matches: false };

/**
 * Every clause present must match; each says why it did, so the plan can show it. A clause a candidate
 * has nothing for (a headline for an untracked sandbox, an age whose moment was never recorded) does not
 * match: what cannot be told is never taken as old enough, or as the right kind.
 */
export function matchSelector(
  selector: Selector,
  candidate: JanitorCandidate,
  context: SelectionContext,
): Selection {
  const clauses: string[] = [];
  const judged: Array<() => Clause | Clause[]> = [
    () => kindClause(selector, candidate),
    () => leaseClauses(selector, candidate, context),
    () => (selector.age === undefined ? [] : ageClauses(selector.age, candidate, context.now)),
    () => shapeClause(selector, candidate),
    () => providerClause(selector, candidate),
    () => proofClause(selector, candidate, context),
  ];
  for (const judge of judged) {
    const result = judge();
    const list = Array.isArray(result) ? result : [result];
    for (const clause of list) {
      if (clause === null) return NO_MATCH;
      clauses.push(clause);
    }
  }
  return { matches: true, clauses };
}

function kindClause({ kind }: Selector, candidate: JanitorCandidate): Clause | Clause[] {
  if (kind === undefined) return [];
  if (kind !== candidate.kind) return null;
  return kind === "lease" ? "a lease row" : "a sandbox no lease row names";
}

function leaseClauses(selector: Selector, candidate: JanitorCandidate, context: SelectionContext): Clause[] {
  const { headline, ownership, flags, environment, company, status, leasePolicy } = selector;
  const asked = [headline, ownership, flags, environment, company, status, leasePolicy];
  if (asked.every((clause) => clause === undefined)) return [];
  if (candidate.kind !== "lease") return [null];
  const { lease, verdict } = candidate.lease;
  const clauses: Clause[] = [];

  if (headline !== undefined) {
    clauses.push(headline.includes(verdict.headline) ? `headline ${verdict.headline}` : null);
  }
  if (ownership !== undefined) {
    const code = verdict.ownership.find((one) => ownership.includes(one));
    clauses.push(code === undefined ? null : `ownership ${code}`);
  }
  if (flags?.allOf !== undefined) {
    const all = flags.allOf.every((flag) => verdict.flags.includes(flag));
    clauses.push(all ? `flagged ${flags.allOf.join(", ")}` : null);
  }
  if (flags?.noneOf !== undefined) {
    const none = flags.noneOf.every((flag) => !verdict.flags.includes(flag));
    clauses.push(none ? `not flagged ${flags.noneOf.join(", ")}` : null);
  }
  if (environment !== undefined) {
    const env = candidate.lease.environment;
    const id = env?.id ?? lease.environmentId;
    const named =
      (id !== null && environment.includes(id)) || (env != null && environment.includes(env.name));
    clauses.push(named ? `environment ${env === null ? id : `${env.name} (${env.id})`}` : null);
  }
  if (company !== undefined) {
    const name = context.companyNames.get(lease.companyId);
    const named = company.includes(lease.companyId) || (name !== undefined && company.includes(name));
    clauses.push(
      named ? `company ${name === undefined ? lease.companyId : `${name} (${lease.companyId})`}` : null,
    );
  }
  if (status !== undefined) {
    clauses.push((status as readonly string[]).includes(lease.status) ? `status ${lease.status}` : null);
  }
  if (leasePolicy !== undefined) {
    const policy = lease.leasePolicy;
    clauses.push((leasePolicy as readonly string[]).includes(policy) ? `lease policy ${policy}` : null);
  }
  return clauses;
}

const MOMENT_WORDS: Record<keyof AgeSelector, string> = {
  acquired: "acquired",
  released: "released",
  lastUsed: "last used",
  created: "created",
};

function ageClauses(age: AgeSelector, candidate: JanitorCandidate, now: Date): Clause[] {
  const clauses: Clause[] = [];
  for (const moment of ["acquired", "released", "lastUsed", "created"] as const) {
    const limit = age[moment];
    if (limit === undefined) continue;
    const at = momentOf(candidate, moment);
    const since = at === null ? Number.NaN : now.getTime() - Date.parse(at);
    const limitMs = durationMs(limit);
    // Older than means strictly older: a sandbox exactly 2 h old is not yet "older than 2h".
    clauses.push(
      limitMs !== null && since > limitMs
        ? `${MOMENT_WORDS[moment]} ${formatAge(since)} ago (older than ${limit})`
        : null,
    );
  }
  return clauses;
}

function momentOf(candidate: JanitorCandidate, moment: keyof AgeSelector): string | null {
  if (candidate.kind === "untracked") {
    return moment === "created" ? (candidate.sandbox.sandbox.createdAt ?? null) : null;
  }
  const { lease, provider } = candidate.lease;
  switch (moment) {
    case "acquired":
      return lease.acquiredAt;
    case "released":
      return lease.releasedAt;
    case "lastUsed":
      return lease.lastUsedAt;
    case "created":
      return provider.sandbox?.createdAt ?? null;
  }
}

function shapeClause({ shape }: Selector, candidate: JanitorCandidate): Clause | Clause[] {
  if (shape === undefined) return [];
  const actual = shapeOf(candidate);
  return actual !== null && shape.includes(actual) ? `shape ${actual}` : null;
}

/** The shape CreateOS lists, or the one the lease recorded when the listing does not say. */
function shapeOf(candidate: JanitorCandidate): string | null {
  if (candidate.kind === "untracked") return candidate.sandbox.sandbox.shape ?? null;
  const listed = candidate.lease.provider.sandbox?.shape;
  if (listed !== undefined) return listed;
  const metadata = metadataObject(candidate.lease.lease.metadata);
  const recordedShape = metadata === null ? undefined : recorded(metadata, "shape");
  return typeof recordedShape === "string" ? recordedShape : null;
}

function providerClause({ provider }: Selector, candidate: JanitorCandidate): Clause | Clause[] {
  if (provider === undefined) return [];
  const code = candidate.kind === "lease" ? candidate.lease.verdict.provider : candidate.sandbox.status;
  const known = (PROVIDER_CODES as readonly string[]).includes(code);
  return known && (provider as readonly string[]).includes(code) ? `CreateOS says ${code}` : null;
}

function proofClause(
  { proof }: Selector,
  candidate: JanitorCandidate,
  context: SelectionContext,
): Clause | Clause[] {
  if (proof === undefined) return [];
  const kept = context.proofs.get(candidateProofKey(candidate));
  const answer = kept?.answer ?? "none";
  if ((proof as readonly string[]).includes(answer)) {
    return answer === "none" ? "no marker proof kept" : `marker proof ${answer}`;
  }
  if (proof.includes("ended-lease")) {
    const reading = readProof(candidate, context.proofs, context);
    if (reading.proves) return `marker proof: ${reading.message}`;
  }
  return null;
}
