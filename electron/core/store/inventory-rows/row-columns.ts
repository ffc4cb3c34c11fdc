import { hash } from "node:crypto";
import { leaseViewRow } from "../../../../shared/contract/index.js";
import { originOf } from "../../../../shared/domain/api-url.js";
import { closedAtMs } from "../../../../shared/domain/closed-at.js";
import type { Headline, OwnershipCode } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, SandboxListing } from "../../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../../shared/domain/listed-environment.js";
import { recordedMarker } from "../../../../shared/domain/marker-proof.js";
import { recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";

/** A row of `inventory_rows` as it is written (migration 62 says what each column is). */
export interface RowColumns {
  sourceId: string;
  leaseId: string;
  seq: number;
  headline: Headline;
  closedAtMs: number;
  environmentId: string | null;
  environmentKnown: 0 | 1;
  companyId: string | null;
  providerCode: string;
  origin: string | null;
  sandboxId: string | null;
  /** The marker the row records (`recordedMarker`), or null. */
  marker: string | null;
  /** The verdict's ownership codes, as JSON (`ownershipColumn`). */
  ownership: string;
  sharedCount: number;
  inputs: string;
  rejudgeAtMs: number | null;
  version: string;
  observedFrom: string | null;
  viewRow: string;
  searchText: string | null;
  data: string;
}

/** What a scan says of a row beside the row itself. */
export interface RowWriteOptions {
  /** Its place in its source's order (0 in a source ordered by lease id). */
  seq: number;
  /** A digest of what it was judged from but the other rows on its sandbox, or `NO_INPUTS`. */
  inputs: string;
  /** When the time alone may change its verdict; null: never. */
  rejudgeAtMs: number | null;
}

/**
 * The columns a classified lease is written with. `redact` takes the configured keys out of everything
 * that reaches the file; `observedFrom` names the listing whose time stands for the provider's
 * `observedAt` (then left out of the row's JSON, so a new listing time alone changes nothing on disk).
 */
export function rowColumns(
  classified: ClassifiedLease,
  options: RowWriteOptions,
  observedFrom: string | null,
  redact: <T>(value: T) => T,
): RowColumns {
  const kept = redact(observedFrom === null ? classified : withoutObservedAt(classified));
  const data = JSON.stringify(kept);
  const headline = classified.verdict.headline;
  const viewRow = leaseViewRow(kept);
  return {
    sourceId: classified.sourceId,
    leaseId: classified.lease.id,
    seq: options.seq,
    headline,
    closedAtMs: closedAtMs(classified),
    environmentId: listedEnvironmentId(classified),
    environmentKnown: classified.environment === null ? 0 : 1,
    companyId: classified.lease.companyId,
    providerCode: classified.provider.code,
    origin: classified.provider.origin,
    sandboxId: recordedSandboxId(classified.lease),
    marker: recordedMarker(kept.lease.metadata),
    ownership: ownershipColumn(classified.verdict.ownership),
    sharedCount: classified.sharedWithCount ?? classified.sharedWith.length,
    inputs: options.inputs,
    rejudgeAtMs: Number.isFinite(options.rejudgeAtMs) ? options.rejudgeAtMs : null,
    version: hash("sha1", `${data}\u0000${observedFrom ?? ""}`, "base64"),
    observedFrom,
    viewRow: JSON.stringify(viewRow),
    searchText: headline === "closed" ? historySearchText(kept) : null,
    data,
  };
}

/**
 * The ownership column: the codes as JSON, in the verdict's order. A row that is its environment's own
 * and nothing else is `OWNED_ONLY`, the value `inventory_rows_ownership` leaves out.
 */
export function ownershipColumn(ownership: readonly OwnershipCode[]): string {
  return JSON.stringify(ownership);
}

export const OWNED_ONLY = ownershipColumn(["owned"]);

/**
 * What history's search reads of a closed row: the table's search text (`leaseSearchText`) but the
 * company's name, which a search matches through the companies' names (a name can change without any
 * row changing).
 */
export function historySearchText(classified: ClassifiedLease): string {
  return [
    classified.lease.id,
    classified.lease.providerLeaseId ?? "",
    classified.environment?.name ?? "",
    listedEnvironmentId(classified) ?? "",
    classified.lease.companyId ?? "",
  ]
    .join("\u0000")
    .toLowerCase();
}

function withoutObservedAt(classified: ClassifiedLease): ClassifiedLease {
  return { ...classified, provider: { ...classified.provider, observedAt: null } };
}

/**
 * The listing each row's `observedAt` came from: one time per origin and credential (and per origin for
 * a sandbox no listing showed). A row whose time is not its listing's keeps its own.
 */
export class ObservedListings {
  readonly times: Record<string, string> = {};

  /**
   * Every listing's time, as rows it showed (and rows its origin does not show) carry it: the first OK
   * listing at an origin stands for a sandbox none of them shows.
   */
  listed(listings: readonly SandboxListing[]): void {
    for (const { origin: listedAt, credential, outcome } of listings) {
      if (!outcome.ok) continue;
      const origin = originOf(listedAt) ?? listedAt;
      this.times[`${origin} ${credential}`] ??= outcome.observedAt;
      this.times[`${origin} `] ??= outcome.observedAt;
    }
  }

  keyOf(classified: ClassifiedLease): string | null {
    const { observedAt, origin, credential } = classified.provider;
    if (typeof observedAt !== "string" || origin === null) return null;
    const key = `${origin} ${credential ?? ""}`;
    const known = this.times[key];
    if (known === undefined) this.times[key] = observedAt;
    else if (known !== observedAt) return null;
    return key;
  }
}
