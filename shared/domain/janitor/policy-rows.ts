import type { Headline } from "../codes.js";
import type { ClassifiedLease } from "../inventory.js";
import type { MarkerProof } from "../marker-proof.js";
import type { Policy } from "./policy.js";
import { matchSelector, type SelectionContext } from "./select.js";

/**
 * What a plan of a policy reads of an inventory's rows. `planPass` passes over a row that no rule's
 * selector matches without leaving a trace (no item, no claim, no cap used), so a plan over only the rows
 * some rule matches is the plan over every row, provided it reads the same statuses for the leases the
 * proofs name, which may be any rows at all (history included). A store can then hand a plan the rows it
 * needs one at a time, keeping only those, however much history it holds.
 */
export function policyRowPicker(
  policy: Pick<Policy, "rules">,
  context: SelectionContext,
): (classified: ClassifiedLease) => boolean {
  return (lease) =>
    policy.rules.some((rule) => matchSelector(rule.select, { kind: "lease", lease }, context).matches);
}

/**
 * The headlines a row must have for some rule to match it, read from the rules alone: a rule for
 * sandboxes no row names matches no row, and one with a `headline` clause only rows with one of its
 * headlines. Null when some rule may match a row of any headline (every row must be read); an empty
 * list when no rule matches any row. A store reads the rows by their headline's index instead of all.
 */
export function policyHeadlines(policy: Pick<Policy, "rules">): Headline[] | null {
  const headlines = new Set<Headline>();
  for (const { select } of policy.rules) {
    if (select.kind === "untracked") continue;
    if (select.headline === undefined) return null;
    for (const headline of select.headline) headlines.add(headline);
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
