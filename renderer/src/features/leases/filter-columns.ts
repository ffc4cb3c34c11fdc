import type { InventoryView } from "../../../../shared/contract";

/**
 * The part of an inventory view the filters read: ids and the code columns, and the tables they index.
 * An `InventoryView` is one; the search worker holds one whose code columns are typed arrays (they
 * travel to it transferred, not copied).
 */
export interface FilterColumns {
  leases: {
    leaseId: readonly string[];
    sandboxId: readonly (string | null)[];
    environment: ArrayLike<number>;
    company: ArrayLike<number>;
    headline: ArrayLike<number>;
    provider: ArrayLike<number>;
  };
  environments: readonly Pick<InventoryView["environments"][number], "sourceId" | "environmentId" | "name">[];
  companies: readonly string[];
  companyNames: readonly (string | null)[];
}

/**
 * The filter columns of a view, ready to post to the search worker: the code columns copied into typed
 * arrays whose buffers are transferred (the view keeps its own), the ids and tables cloned once.
 */
export function filterColumnsOf(view: InventoryView): { columns: FilterColumns; transfer: ArrayBuffer[] } {
  const { leaseId, sandboxId, environment, company, headline, provider } = view.leases;
  const codes = {
    environment: Int32Array.from(environment),
    company: Int32Array.from(company),
    headline: Int32Array.from(headline),
    provider: Int32Array.from(provider),
  };
  return {
    columns: {
      leases: { leaseId, sandboxId, ...codes },
      environments: view.environments.map(({ sourceId, environmentId, name }) => ({
        sourceId,
        environmentId,
        name,
      })),
      companies: view.companies,
      companyNames: view.companyNames,
    },
    transfer: Object.values(codes).map((column) => column.buffer),
  };
}
