import type { Headline, OwnershipCode } from "../codes.js";
import type { ClassifiedLease } from "../inventory.js";
import type { MarkerProof } from "../marker-proof.js";
import { isHistory } from "./candidate.js";
import type { Policy } from "./policy.js";
import { matchSelector, type SelectionContext } from "./select.js";

/**
 * What a plan of a policy reads of an inventory's rows. `planPass` passes over a row that no rule's
 * selector matches, and over history, without leaving a trace (no item, no claim, no cap used), so a plan
 * over only the rows some rule matches is the plan over every row, provided it reads the same statuses
 * for the leases the proofs name, which may be any rows at all (history included). A store can then hand
 * a plan the rows it needs one at a time, keeping only those, however much history it holds; it need not
 * hand over history at all (`closed` rows: `isHistory`).
 */
export function policyRowPicker(
  policy: Pick<Policy, "rules">,
  context: SelectionContext,
): (classified: ClassifiedLease) => boolean {
  return (lease) =>
    !isHistory(lease) &&
    policy.rules.some((rule) => matchSelector(rule.select, { kind: "lease", lease }, context).matches);
}

/**
 * What one rule asks of a row's stored columns (`inventory_rows`): a row whose column holds none of a
 * list's values cannot match the rule. Only the clauses a column answers exactly are taken: the verdict's
 * headline and ownership codes (a row may hold several: it matches when it holds one of the list's),
 * CreateOS's state (`provider_code`), the environment the row is listed under and its company (each
 * named by id, or by name through the environments and companies the inventory knows).
 */
export interface RuleColumns {
  headlines?: Headline[];
  ownership?: OwnershipCode[];
  providerCodes?: string[];
  environmentIds?: string[];
  companyIds?: string[];
}

/** The environments and companies an inventory knows, to turn the names a rule gives into ids. */
export interface KnownNames {
  environments: readonly { id: string; name: string }[];
  companies: readonly { id: string; name: string }[];
}

/**
 * What the rows some rule may match have in their stored columns, rule by rule (a row may match when it
 * answers every list of one of them); a rule for sandboxes no row names matches no row and is left out.
 * Null when some rule names no clause a column answers: then any row may match and every row is read. A
 * store reads by these instead of parsing every row it holds.
 */
export function policyRowColumns(policy: Pick<Policy, "rules">, known: KnownNames): RuleColumns[] | null {
  const idsOf = (values: readonly string[], named: readonly { id: string; name: string }[]) => {
    const wanted = new Set(values);
    return [
      ...new Set([...values, ...named.filter((entry) => wanted.has(entry.name)).map((entry) => entry.id)]),
    ];
  };
  const rules: RuleColumns[] = [];
  for (const { select } of policy.rules) {
    if (select.kind === "untracked") continue;
    const columns: RuleColumns = {
      ...(select.headline === undefined ? {} : { headlines: [...select.headline] }),
      ...(select.ownership === undefined ? {} : { ownership: [...select.ownership] }),
      ...(select.provider === undefined ? {} : { providerCodes: [...select.provider] }),
      ...(select.environment === undefined
        ? {}
        : { environmentIds: idsOf(select.environment, known.environments) }),
      ...(select.company === undefined ? {} : { companyIds: idsOf(select.company, known.companies) }),
    };
    if (Object.keys(columns).length === 0) return null;
    rules.push(columns);
  }
  return rules;
}

/**
 * The headlines a row must have for some rule to select it, when every rule names its headlines (`rules`
 * from `policyRowColumns`): the store reads those rows by the headline index. History (`closed`) is left
 * out, since no rule selects it. Null when some rule may match a row of any headline.
 */
export function policyHeadlines(rules: readonly RuleColumns[]): Headline[] | null {
  const headlines = new Set<Headline>();
  for (const rule of rules) {
    if (rule.headlines === undefined) return null;
    for (const headline of rule.headlines) if (headline !== "closed") headlines.add(headline);
  }
  return [...headlines];
}

/** The leases whose statuses a plan reading `proofs` may ask for: every owner a proof names. */
export function proofOwners(proofs: Iterable<MarkerProof>): { sourceId: string; leaseId: string }[] {
  const owners = new Map<string, { sourceId: string; leaseId: string }>();
  for (const proof of proofs) {
    for (const { sourceId, leaseId } of proof.owners)
      owners.set(JSON.stringify([sourceId, leaseId]), { sourceId, leaseId });
  }
  return [...owners.values()];
}
