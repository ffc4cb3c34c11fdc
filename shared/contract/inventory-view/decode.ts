import {
  ACTION_KINDS,
  DESTROY_CONFIRMATIONS,
  HEADLINES,
  type Headline,
  OWNERSHIP_CODES,
  PROVIDER_CODES,
  ROW_FLAGS,
} from "../../domain/codes.js";
import { UNKNOWN_REASONS } from "../../domain/inventory.js";
import { maskDecoder } from "./masks.js";
import type { EnvironmentRef, LeaseRowView, RowTables } from "./schema.js";

const NO_ENVIRONMENT: EnvironmentRef = {
  sourceId: "",
  environmentId: null,
  company: -1,
  name: "",
  known: false,
  counts: emptyCounts(),
};

/** The compact view → plain row objects for the table. */
export function decodeInventoryRows(view: RowTables): LeaseRowView[] {
  const decodeRow = inventoryRowDecoder(view);
  const rows: LeaseRowView[] = new Array(view.leases.leaseId.length);
  for (let row = 0; row < rows.length; row++) rows[row] = decodeRow(row);
  return rows;
}

/**
 * One row of the compact view → its plain row object, on demand. A table of 100,000 leases shows a few
 * dozen at a time, so it decodes those and reads everything else (filters, counts, sort keys) from the
 * columns themselves. Rows decoded by the same decoder share one frozen array per distinct code mask.
 */
export function inventoryRowDecoder(view: RowTables): (row: number) => LeaseRowView {
  const ownership = maskDecoder(OWNERSHIP_CODES);
  const flags = maskDecoder(ROW_FLAGS);
  const actionKinds = maskDecoder(ACTION_KINDS);
  const actionMask = (1 << ACTION_KINDS.length) - 1;
  const columns = view.leases;
  return (row) => {
    const environment = at(view.environments, columns.environment[row]!) ?? NO_ENVIRONMENT;
    const actions = columns.actions[row]!;
    const confirmation = columns.confirmation[row]!;
    const company = columns.company[row]!;
    return {
      leaseId: columns.leaseId[row]!,
      sourceId: environment.sourceId,
      environmentId: environment.environmentId,
      environmentName: environment.name,
      environmentKnown: environment.known,
      companyId: at(view.companies, company),
      companyName: at(view.companyNames, company),
      sandboxId: columns.sandboxId[row] ?? null,
      status: at(view.statuses, columns.status[row]!) ?? "",
      leasePolicy: at(view.policies, columns.policy[row]!) ?? "",
      headline: at(HEADLINES, columns.headline[row]!) ?? "unknown",
      provider: at(PROVIDER_CODES, columns.provider[row]!) ?? "unknown",
      unknownReason: at(UNKNOWN_REASONS, columns.unknownReason[row]!),
      ownership: ownership(columns.ownership[row]!),
      flags: flags(columns.flags[row]!),
      allowedActions: actionKinds(actions & actionMask),
      overridableActions: actionKinds(actions >> ACTION_KINDS.length),
      destroyConfirmation: confirmation > 0 ? (at(DESTROY_CONFIRMATIONS, confirmation - 1) ?? null) : null,
      origin: at(view.origins, columns.origin[row]!),
      acquiredAtMs: columns.acquiredAt[row]! * 1000,
      lastUsedAtMs: columns.lastUsedAt[row]! * 1000,
      sharedCount: columns.shared[row]!,
      actedOnBy: at(view.actedOn, columns.actedOnBy[row]!),
      shape: at(view.shapes, columns.shape[row]!),
    };
  };
}

/** The entry of a lookup table an index names; null for -1 or an index past the table. */
function at<T>(table: readonly T[], position: number): T | null {
  return position >= 0 && position < table.length ? table[position]! : null;
}

function emptyCounts(): Record<Headline, number> {
  return Object.fromEntries(HEADLINES.map((headline) => [headline, 0])) as Record<Headline, number>;
}
