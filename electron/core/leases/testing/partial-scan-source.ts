import type { SourceSnapshot } from "../../../../shared/domain/inventory.js";
import { metadataObject, recorded } from "../../../../shared/domain/lease-metadata.js";
import type { Environment, LeaseRow } from "../../../../shared/domain/paperclip.js";
import { LedgerSource } from "../ledger.js";
import type { LeaseSource } from "../source.js";

/** The metadata keys a scan that reads only what Leasekeeper judges by keeps of a plugin-shaped row. */
export const SCANNED_KEYS = [
  "provider",
  "companyId",
  "environmentId",
  "apiUrl",
  "shape",
  "rootfs",
  "region",
  "reuseLease",
  "timeoutMs",
  "marker",
  "providerMetadata",
  "pendingCleanupInFlight",
  "pendingCleanupLeaseExpiresAtMs",
] as const;

const OWNERSHIP_KEYS = ["provider", "companyId", "environmentId", "apiUrl"];

/**
 * A ledger file read the way a scan that trims metadata reads its database: `load` keeps only the
 * scanned keys of each plugin-shaped row and flags it `partialMetadata`, while `readLease` reads the row
 * whole, as the file holds it now. `failReads` makes every read by id fail, as an unreachable source
 * would. Test support only.
 */
export class PartialScanSource implements LeaseSource {
  readonly kind = "ledger" as const;
  readonly id: string;
  /** When set, `readLease` and `readEnvironment` throw this. */
  failReads: Error | null = null;
  readonly #ledger: LedgerSource;

  constructor(options: { id: string; path: string }) {
    this.id = options.id;
    this.#ledger = new LedgerSource(options);
  }

  async load(): Promise<SourceSnapshot> {
    const snapshot = await this.#ledger.load();
    return { ...snapshot, leases: snapshot.leases.map(scanned) };
  }

  async readLease(leaseId: string): Promise<LeaseRow | null> {
    if (this.failReads) throw this.failReads;
    return this.#ledger.readLease(leaseId);
  }

  async readEnvironment(environmentId: string): Promise<Environment | null> {
    if (this.failReads) throw this.failReads;
    return this.#ledger.readEnvironment(environmentId);
  }
}

/** A row as a trimming scan hands it over: non-plugin metadata stays whole and unflagged. */
export function scanned(row: LeaseRow): LeaseRow {
  const metadata = metadataObject(row.metadata);
  if (metadata === null || !OWNERSHIP_KEYS.some((key) => recorded(metadata, key) != null)) return row;
  const kept: Record<string, unknown> = {};
  for (const key of SCANNED_KEYS) {
    const value = recorded(metadata, key);
    if (value !== undefined) kept[key] = value;
  }
  return { ...row, metadata: kept, partialMetadata: true };
}
