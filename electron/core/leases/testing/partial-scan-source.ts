import type { SourceSnapshot } from "../../../../shared/domain/inventory.js";
import type { Environment, LeaseRow } from "../../../../shared/domain/paperclip.js";
import {
  isTrimmableMetadata,
  keysLeftOutOfScan,
  scannedMetadata,
} from "../../../../shared/domain/scanned-metadata.js";
import { LedgerSource } from "../ledger.js";
import { pagedRead } from "../paged-read.js";
import type { LeaseSource } from "../source.js";
import type { SourceRead } from "../source-read.js";
import { snapshotOf } from "../source-snapshot.js";

/**
 * A ledger file read the way Paperclip's database source scans: `read` and `load` leave the host's bookkeeping
 * out of each plugin-shaped row and flags it `partialMetadata`, while `readLease` reads the row
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
    return snapshotOf(await this.read());
  }

  async read(): Promise<SourceRead> {
    const ledger = await this.#ledger.read();
    return pagedRead(
      {
        sourceId: ledger.sourceId,
        environments: ledger.environments,
        companies: ledger.companies,
        scope: ledger.scope,
        order: ledger.order,
      },
      {
        async *pages() {
          try {
            for await (const page of ledger.pages()) yield page.map((lease) => scanned(lease));
            return ledger.end();
          } finally {
            await ledger.cancel();
          }
        },
        letGo: () => ledger.cancel(),
      },
    );
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

/** A row as a database scan hands it over: metadata not in the plugin's shape stays whole and unflagged. */
export function scanned(row: LeaseRow, configKeys: Iterable<string> = []): LeaseRow {
  if (!isTrimmableMetadata(row.metadata)) return row;
  return {
    ...row,
    metadata: scannedMetadata(row.metadata, keysLeftOutOfScan(configKeys)),
    partialMetadata: true,
  };
}
