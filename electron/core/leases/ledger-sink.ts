/** Where the lease items of a ledger go as they are parsed. */
export interface LeaseSink {
  add(item: unknown, index: number): void;
}

export const SKIP_LEASES: LeaseSink = { add: () => undefined };
