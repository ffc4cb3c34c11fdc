import { describe, expect, it } from "vitest";
import { decodeInventoryRows, encodeInventory, type InventoryView } from "../../../../shared/contract";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture";
import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import { chipPositions, headlineCounts, providerCounts, scopePositions } from "./column-filter";
import { applyChips, countBy, filterRows } from "./filter-rows";
import { environmentKey, searchHaystack } from "./row-model";
import { haystackAt, SearchIndex } from "./search-index";
import { COLUMN_IDS, sortOrder, sortPositions } from "./sort-rows";

/**
 * A fixture inventory with the awkward cases written into it: letters whose lower case is longer (İ) or
 * depends on its neighbours (Σ), a NUL and the row separator inside ids, indexes that name no table
 * entry, and codes outside their vocabularies.
 */
function awkwardView(): InventoryView {
  const view = encodeInventory(makeInventoryFixture({ rows: 5000, environments: 12, seed: 7 }));
  const { leases } = view;
  leases.leaseId[0] = "İSTANBUL-lease";
  leases.leaseId[1] = "ΟΔΟΣ-lease";
  leases.leaseId[2] = "nul\u0000inside";
  leases.leaseId[3] = "row\u0001sep";
  leases.leaseId[4] = "Σ";
  leases.sandboxId[5] = null;
  leases.environment[6] = -1;
  leases.environment[7] = 999;
  leases.company[8] = -1;
  leases.company[9] = 999;
  leases.headline[10] = 99;
  leases.provider[11] = 99;
  leases.leaseId[12] = leases.leaseId[13]!;
  view.environments[0] = { ...view.environments[0]!, name: "Straße ΟΔΟΣ İzmir" };
  view.companyNames[0] = "Acme ΣΑΣ";
  return view;
}

const view = awkwardView();
const rows = decodeInventoryRows(view);
const index = new SearchIndex(view);
const none = new Set<never>();

const SEARCHES = [
  "",
  "a",
  "sb-",
  "  SB-0 ",
  "i̇stanbul",
  "İstanbul",
  "οδος",
  "οδοσ",
  "σ",
  "ς",
  "straße",
  "acme σας",
  "nul\u0000ins",
  "\u0000",
  "row\u0001sep",
  "lease\u0001",
  "-lease",
  "zz-no-such-text",
  view.leases.leaseId[100]!.slice(3, 15),
  view.leases.sandboxId[200]!.toLowerCase(),
];
const SCOPES = [
  null,
  environmentKey(view.environments[0]!.sourceId, view.environments[0]!.environmentId),
  environmentKey(view.environments[3]!.sourceId, view.environments[3]!.environmentId),
  environmentKey("", null),
  "not a key",
];
const CHIPS: [Headline[], ProviderCode[]][] = [
  [[], []],
  [["closed"], []],
  [["foreign", "unknown"], []],
  [[], ["running", "unknown"]],
  [
    ["stale", "ok"],
    ["gone", "paused"],
  ],
];

describe("the filters over columns", () => {
  it("the search index's text is the decoded row's haystack, row by row", () => {
    for (let at = 0; at < rows.length; at++) expect(haystackAt(view, at)).toBe(searchHaystack(rows[at]!));
  });

  it("keeps the same rows, in the same order, as filterRows and applyChips over decoded rows", () => {
    const order = sortPositions(view, { column: "headline", desc: false });
    const rowOrder = sortOrder(rows, { column: "headline", desc: false });
    expect([...order]).toEqual(rowOrder);
    for (const search of SEARCHES) {
      for (const environment of SCOPES) {
        const scoped = scopePositions(view, index, environment, search, order);
        const expected = filterRows(
          rows,
          { environment, headlines: none, providers: none, search },
          rowOrder,
        );
        expect(
          [...scoped].map((at) => rows[at]),
          `${JSON.stringify(search)} in ${environment}`,
        ).toEqual(expected);
        expect(headlineCounts(view, scoped)).toEqual(countBy(expected, (row) => row.headline));
        for (const [headlines, providers] of CHIPS) {
          const chips = [new Set(headlines), new Set(providers)] as const;
          const shown = chipPositions(view, scoped, ...chips);
          expect([...shown].map((at) => rows[at])).toEqual(applyChips(expected, ...chips));
          expect(providerCounts(view, scoped, chips[0])).toEqual(
            countBy(applyChips(expected, chips[0], none), (row) => row.provider),
          );
        }
      }
    }
  });

  it("finds rows by search, not nothing (the comparison above is not vacuous)", () => {
    const all = sortPositions(view, null);
    const count = (search: string) => scopePositions(view, index, null, search, all).length;
    expect(count("sb-")).toBeGreaterThan(4000);
    expect(count("i̇stanbul")).toBe(1);
    expect(count("οδος")).toBeGreaterThan(1);
    expect(count("nul\u0000ins")).toBe(1);
    expect(count("lease\u0001")).toBe(0);
    expect(count("zz-no-such-text")).toBe(0);
  });

  it("sorts by every column, both ways, as sortOrder does over decoded rows", () => {
    for (const column of COLUMN_IDS) {
      for (const desc of [false, true]) {
        expect([...sortPositions(view, { column, desc })], `${column} ${desc}`).toEqual(
          sortOrder(rows, { column, desc }),
        );
      }
    }
    expect([...sortPositions(view, null)]).toEqual(sortOrder(rows, null));
  });

  it("builds the search index in slices that end up the same as one build", () => {
    const sliced = new SearchIndex(view);
    let slices = 0;
    while (!sliced.build(() => false)) slices++;
    expect(slices).toBeGreaterThan(0);
    const all = sortPositions(view, null);
    for (const search of SEARCHES) {
      expect(scopePositions(view, sliced, null, search, all)).toEqual(
        scopePositions(view, index, null, search, all),
      );
    }
  });
});
