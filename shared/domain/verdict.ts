import { decideActions } from "./allowed-actions.js";
import { type FlagContext, rowFlags } from "./flags.js";
import { headline, isClosed } from "./headline.js";
import type { LeaseVerdict, ProviderObservation } from "./inventory.js";
import { ownership } from "./ownership.js";
import type { Environment, LeaseRow } from "./paperclip.js";

export type ClassifyContext = FlagContext;

/**
 * The verdict on one lease row: whose it is (from its metadata), what CreateOS says of its sandbox, the
 * flags beside them, the one headline the table shows, and what an operator may do about it.
 */
export function classifyLease(
  row: LeaseRow,
  environment: Environment | null,
  observation: ProviderObservation,
  context: ClassifyContext,
): LeaseVerdict {
  const ownershipCodes = ownership(row, environment, context.installedPlugin);
  const provider = observation.code;
  const flags = rowFlags(row, environment, provider, context, ownershipCodes);
  const evidence = { ownership: ownershipCodes, provider, flags, leaseStatus: row.status };
  const actions = decideActions({
    ownership: ownershipCodes,
    provider,
    flags,
    otherRowsOnSandbox: context.otherRowsOnSandbox,
    closed: isClosed(evidence),
  });
  return {
    ownership: ownershipCodes,
    provider,
    flags,
    headline: headline(evidence),
    allowedActions: actions.allowedActions,
    overridableActions: actions.overridableActions,
    destroyConfirmation: actions.destroyConfirmation,
    refusals: actions.refusals,
  };
}
