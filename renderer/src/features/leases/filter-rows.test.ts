import { describe, expect, it } from "vitest";
import { decodeInventoryRows, encodeInventory } from "../../../../shared/contract";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture";
import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import { row } from "../../test/rows";
import { applyChips, countBy, filterRows, type RowFilter } from "./filter-rows";
import { environmentKey, reasonCodes } from "./row-model";
import { sortOrder } from "./sort-rows";

const rows = [
  row({ leaseId: "L-foreign", headline: "foreign", provider: "running", ownership: ["foreign-company"] }),
  row({
    leaseId: "L-stale",
    headline: "stale",
    provider: "gone",
    environmentId: "env-2",
    environmentName: "Staging",
  }),
  row({ leaseId: "L-ok", headline: "ok", sandboxId: "sb-Needle" }),
  row({ leaseId: "L-unknown", headline: "unknown", provider: "unknown", unknownReason: "network" }),
];
const none = new Set<never>();
const filter = (overrides: Partial<RowFilter>): string[] =>
  filterRows(rows, {
    environment: null,
    headlines: none,
    providers: none,
    search: "",
    ...overrides,
  }).map((r) => r.leaseId);

describe("filterRows", () => {
  it.each<[string, Partial<RowFilter>, string[]]>([
    ["no filter keeps every row in inventory order", {}, ["L-foreign", "L-stale", "L-ok", "L-unknown"]],
    ["a headline chip keeps that headline", { headlines: new Set<Headline>(["foreign"]) }, ["L-foreign"]],
    [
      "two headline chips keep either",
      { headlines: new Set<Headline>(["stale", "unknown"]) },
      ["L-stale", "L-unknown"],
    ],
    ["a provider chip keeps that state", { providers: new Set<ProviderCode>(["gone"]) }, ["L-stale"]],
    ["search matches sandbox ids, case-insensitively", { search: "needle" }, ["L-ok"]],
    ["search matches environment names", { search: "stag" }, ["L-stale"]],
    ["search ignores surrounding spaces", { search: "  l-unknown " }, ["L-unknown"]],
    [
      "an environment scope keeps its rows only",
      { environment: environmentKey("ledger:/demo.json", "env-2") },
      ["L-stale"],
    ],
    ["filters combine", { headlines: new Set<Headline>(["ok", "stale"]), search: "L-ok" }, ["L-ok"]],
    ["no match is empty, not an error", { search: "nothing-like-this" }, []],
  ])("%s", (_, overrides, expected) => {
    expect(filter(overrides)).toEqual(expected);
  });

  it("an environment key it did not make matches nothing", () => {
    expect(filter({ environment: "not json" })).toEqual([]);
  });

  it("walks a sort order instead of inventory order when given one", () => {
    const order = sortOrder(rows, { column: "leaseId", desc: false });
    const result = filterRows(
      rows,
      { environment: null, headlines: none, providers: none, search: "" },
      order,
    );
    expect(result.map((r) => r.leaseId)).toEqual(["L-foreign", "L-ok", "L-stale", "L-unknown"]);
  });

  it("filters 20,000 decoded rows by search exactly as a plain scan of every row's text would", () => {
    // Its speed per keystroke is measured by `npm run bench` (ui), not asserted here.
    const big = decodeInventoryRows(encodeInventory(makeInventoryFixture({ rows: 20_000, seed: 3 })));
    for (const search of ["ab", "sb-", "zz-no-such-text"]) {
      const found = filterRows(big, { environment: null, headlines: none, providers: none, search });
      expect(found.length).toBeLessThanOrEqual(big.length);
      const again = filterRows(big, { environment: null, headlines: none, providers: none, search });
      expect(again.map((row) => row.leaseId)).toEqual(found.map((row) => row.leaseId));
      for (const row of found) expect(JSON.stringify(row).toLowerCase()).toContain(search.toLowerCase());
    }
    expect(
      filterRows(big, { environment: null, headlines: none, providers: none, search: "sb-" }).length,
    ).toBeGreaterThan(0);
  });
});

describe("countBy", () => {
  it("counts rows per value for the chips", () => {
    expect(countBy(rows, (r) => r.headline)).toEqual(
      new Map([
        ["foreign", 1],
        ["stale", 1],
        ["ok", 1],
        ["unknown", 1],
      ]),
    );
  });
});

describe("reasonCodes", () => {
  it.each([
    ["an owned ok row has no reasons", row(), []],
    [
      "ownership problems come first, then flags",
      row({ ownership: ["api-url-changed"], flags: ["leaking"] }),
      ["api-url-changed", "leaking"],
    ],
    ["gone is a reason", row({ provider: "gone" }), ["gone"]],
    [
      "a code the headline badge already says is left out",
      row({ headline: "leaking", flags: ["leaking", "warm"] }),
      ["warm"],
    ],
    [
      "why a provider state is unknown is a reason",
      row({ provider: "unknown", unknownReason: "timeout" }),
      ["timeout"],
    ],
    [
      "a code two kinds of evidence give is listed once",
      row({ ownership: ["no-sandbox-id"], provider: "unknown", unknownReason: "no-sandbox-id" }),
      ["no-sandbox-id"],
    ],
  ])("%s", (_, input, expected) => {
    expect(reasonCodes(input)).toEqual(expected);
  });
});

describe("applyChips: history behind its chip", () => {
  const rows = [
    row({ leaseId: "live", headline: "leaking", provider: "running" }),
    row({ leaseId: "history", headline: "closed", provider: "gone" }),
    row({ leaseId: "warm", headline: "ok", provider: "paused" }),
  ];
  const ids = (list: readonly { leaseId: string }[]) => list.map((entry) => entry.leaseId);

  it("hides closed rows while no headline chip is pressed", () => {
    expect(ids(applyChips(rows, new Set(), new Set()))).toEqual(["live", "warm"]);
    expect(ids(applyChips(rows, new Set(), new Set(["gone"])))).toEqual([]);
  });

  it("the History chip shows them", () => {
    expect(ids(applyChips(rows, new Set(["closed"]), new Set()))).toEqual(["history"]);
    expect(ids(applyChips(rows, new Set(["closed", "ok"]), new Set()))).toEqual(["history", "warm"]);
  });
});
