import { describe, expect, it } from "vitest";
import type { InventoryView } from "../../../../shared/contract";
import { HEADLINES } from "../../../../shared/domain/codes";
import { row } from "../../test/rows";
import {
  companyEntries,
  environmentEntries,
  leaseEntries,
  matchScore,
  type PaletteEntry,
  placeEntries,
  rankEntries,
} from "./palette-entries";

function counts(overrides: Partial<Record<(typeof HEADLINES)[number], number>> = {}) {
  return { ...Object.fromEntries(HEADLINES.map((headline) => [headline, 0])), ...overrides } as Record<
    (typeof HEADLINES)[number],
    number
  >;
}

function view(): InventoryView {
  return {
    environments: [
      {
        sourceId: "s",
        environmentId: "env-prod",
        company: 0,
        name: "acme-prod",
        known: true,
        counts: counts({ stale: 3 }),
      },
      {
        sourceId: "s",
        environmentId: "env-stage",
        company: 0,
        name: "acme-staging",
        known: true,
        counts: counts({ leaking: 1 }),
      },
      { sourceId: "s", environmentId: "env-bare", company: -1, name: "", known: false, counts: counts() },
    ],
    companies: ["company-acme"],
  } as unknown as InventoryView;
}

function everything(): PaletteEntry[] {
  const rows = [
    row({ leaseId: "lease-a", sandboxId: "sbx-0001", environmentName: "acme-prod" }),
    row({ leaseId: "lease-b", sandboxId: "sbx-00012", environmentName: "acme-prod" }),
    row({ leaseId: "lease-sbx-0001-copy", sandboxId: "sbx-9" }),
  ];
  return [...environmentEntries(view()), ...companyEntries(view()), ...leaseEntries(rows), ...placeEntries()];
}

const keys = (entries: PaletteEntry[]) => entries.map((entry) => entry.key);

describe("the command palette's entries", () => {
  it("finds a lease by its sandbox id, the exact match first", () => {
    const ranked = rankEntries(everything(), "sbx-0001");
    expect(ranked[0]?.command).toEqual({ kind: "open-lease", leaseId: "lease-a" });
    // A longer sandbox id that starts with the query comes after the exact one.
    expect(keys(ranked).indexOf(`lease ${row().sourceId} lease-b`)).toBeGreaterThan(0);
  });

  it("finds a lease by its lease id", () => {
    expect(rankEntries(everything(), "lease-b")[0]?.command).toEqual({
      kind: "open-lease",
      leaseId: "lease-b",
    });
  });

  it('ranks the stale filter and stale actions above Settings for "stale"', () => {
    const ranked = keys(rankEntries(everything(), "stale"));
    expect(ranked[0]).toBe("filter stale");
    expect(ranked).toContain('plan destroy stale ["s","env-prod"]');
    const settings = ranked.indexOf("view settings");
    if (settings >= 0)
      expect(settings).toBeGreaterThan(ranked.indexOf('plan destroy stale ["s","env-prod"]'));
  });

  it('turns "destroy stale in acme-prod" into a plan of that environment\'s stale leases', () => {
    const [first] = rankEntries(everything(), "destroy stale in acme-prod");
    expect(first?.command).toEqual({
      kind: "plan",
      action: "destroy",
      selection: { kind: "headline", headlines: ["stale"], environmentIds: ["env-prod"] },
      label: "stale leases in acme-prod",
      sandboxId: null,
    });
  });

  it("never puts a destructive entry first unless the query names its action", () => {
    const browsing = rankEntries(everything(), "");
    expect(browsing.some((entry) => entry.command.kind === "plan")).toBe(true);
    expect(browsing[0]?.command.kind).not.toBe("plan");
    const row: PaletteEntry = {
      key: "row destroy",
      group: "action",
      label: "Destroy lease lease-a",
      terms: ["destroy this lease"],
      command: {
        kind: "plan",
        action: "destroy",
        selection: { kind: "leases", leaseIds: ["lease-a"] },
        label: "lease lease-a",
        sandboxId: null,
      },
    };
    const open: PaletteEntry = {
      key: "row open",
      group: "action",
      label: "Open details of lease-a",
      terms: [],
      command: { kind: "open-lease", leaseId: "lease-a" },
    };
    expect(rankEntries([row, open, ...everything()], "")[0]?.key).toBe("row open");
    expect(rankEntries([row, open, ...everything()], "lease-a")[0]?.command.kind).not.toBe("plan");
    expect(rankEntries([row, open, ...everything()], "destroy this")[0]?.key).toBe("row destroy");
  });

  it("offers bulk actions only where an environment has such leases", () => {
    const all = keys(everything());
    expect(all).not.toContain('plan destroy stale ["s","env-stage"]');
    expect(all).toContain('plan release leaking ["s","env-stage"]');
  });

  it("finds an environment by name or id, and one without a name by its id", () => {
    expect(rankEntries(everything(), "acme-staging")[0]?.command).toMatchObject({
      kind: "scope",
      scope: { kind: "environment", name: "acme-staging" },
    });
    expect(rankEntries(everything(), "env-bare")[0]).toMatchObject({
      label: "env-bare",
      group: "environment",
    });
  });

  it("finds a company by its id", () => {
    expect(rankEntries(everything(), "company-acme")[0]?.command).toEqual({
      kind: "company",
      companyId: "company-acme",
    });
  });

  it("lists no lease or company before anything is typed, and nothing for a query that matches nothing", () => {
    const browsing = rankEntries(everything(), "");
    expect(browsing.some((entry) => entry.group === "lease" || entry.group === "company")).toBe(false);
    expect(browsing.some((entry) => entry.key === "view settings")).toBe(true);
    expect(rankEntries(everything(), "zzzz-nothing")).toEqual([]);
  });

  it("caps each group, so a search over twenty thousand leases lists a screenful", () => {
    const rows = Array.from({ length: 20_000 }, (_, at) =>
      row({ leaseId: `lease-${at}`, sandboxId: `sbx-${at}` }),
    );
    const ranked = rankEntries(leaseEntries(rows), "lease", 25);
    expect(ranked).toHaveLength(25);
  });

  it.each([
    ["an exact id", "sbx-0001", 100],
    ["a prefix", "sbx-00", 60],
    ["words that start the label's words", "le lease-", 40],
    ["a substring", "x-000", 20],
    ["no match", "qqq", 0],
  ])("scores %s", (_, query, score) => {
    const entry = leaseEntries([row({ leaseId: "lease-a", sandboxId: "sbx-0001" })])[0]!;
    expect(matchScore(entry, query)).toBe(score);
  });
});
