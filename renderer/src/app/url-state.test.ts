import { describe, expect, it } from "vitest";
import type { InventoryView } from "../../../shared/contract";
import type { UrlState } from "../state/url-state";
import { decodeUrlState, encodeUrlState } from "../state/url-state";
import { attentionCount, pageTitle } from "./page-title";

const BASE: UrlState = {
  view: "leases",
  scope: { kind: "all" },
  headlines: new Set(),
  providers: new Set(),
  search: "",
  drawerLeaseId: null,
};

describe("the view in the address", () => {
  it("is empty for the default view, so a fresh start has a clean address", () => {
    expect(encodeUrlState(BASE)).toBe("");
  });

  it("round-trips environment, filters, search and the open lease", () => {
    const state: UrlState = {
      view: "leases",
      scope: { kind: "environment", key: JSON.stringify(["ledger:/a.json", "env-1"]), name: "acme-prod" },
      headlines: new Set(["stale", "foreign"]),
      providers: new Set(["running"]),
      search: "sbx 42 & more",
      drawerLeaseId: "lease-7",
    };
    const decoded = decodeUrlState(`#${encodeUrlState(state)}`);
    expect(decoded).toEqual({
      ...state,
      // The name is not in the address; the inventory supplies it.
      scope: { ...state.scope, name: "" },
      headlines: new Set(["foreign", "stale"]),
    });
  });

  it("round-trips an untracked account and another view", () => {
    const untracked: UrlState = {
      ...BASE,
      view: "untracked",
      scope: { kind: "untracked", credential: "primary", origin: "https://api.example" },
    };
    expect(decodeUrlState(encodeUrlState(untracked))).toMatchObject({
      view: "untracked",
      scope: untracked.scope,
    });
    expect(decodeUrlState(encodeUrlState({ ...BASE, view: "audit" }))).toEqual({ view: "audit" });
  });

  it("never writes the launch token, and reads nothing from a bare #token= fragment", () => {
    expect(decodeUrlState("#token=secret-launch-token")).toEqual({});
    expect(encodeUrlState({ ...BASE, search: "x" })).not.toContain("token");
  });

  it("leaves out what it does not know instead of throwing", () => {
    expect(decodeUrlState("#view=nowhere&headline=stale,bogus&provider=&lease=")).toEqual({
      headlines: new Set(["stale"]),
      providers: new Set(),
    });
    expect(() => decodeUrlState("#%E0%A4%A")).not.toThrow();
  });
});

describe("the page title", () => {
  it("names the view and the attention count", () => {
    expect(pageTitle("Leases", 12)).toBe("Leases · 12 need attention — Leasekeeper");
    expect(pageTitle("Audit log", 1_234)).toBe("Audit log · 1,234 need attention — Leasekeeper");
    expect(pageTitle("Settings", 0)).toBe("Settings — Leasekeeper");
    expect(pageTitle("Leases", null)).toBe("Leases — Leasekeeper");
  });

  it("counts foreign, stale, leaking and unknown leases over every environment, not ok ones", () => {
    const view = {
      environments: [
        { counts: { foreign: 1, stale: 2, leaking: 3, unknown: 4, ok: 100 } },
        { counts: { foreign: 0, stale: 5, leaking: 0, unknown: 0, ok: 7 } },
      ],
    } as unknown as InventoryView;
    expect(attentionCount(view)).toBe(15);
  });
});
