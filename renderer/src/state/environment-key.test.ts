import { describe, expect, it } from "vitest";
import { type InventoryView, unreadOfGaps } from "../../../shared/contract";
import { environmentKey, unreadEnvironments, unreadWords } from "./environment-key";

type Gap = InventoryView["gaps"][number];
type Environment = InventoryView["environments"][number];

const counts = { closed: 0, foreign: 0, stale: 0, leaking: 0, unknown: 0, ok: 1 };
const environment = (sourceId: string, environmentId: string | null): Environment => ({
  sourceId,
  environmentId,
  company: -1,
  name: environmentId ?? "",
  known: environmentId !== null,
  counts,
});
// "x" and "y" and the rows of no environment are the ledger's; "z" is Paperclip's.
const environments = [
  environment("ledger", "x"),
  environment("ledger", "y"),
  environment("ledger", null),
  environment("paperclip", "z"),
];
const gap = (message: string, fields: Partial<Gap> = {}): Gap => ({
  source: "ledger",
  origin: null,
  message,
  ...fields,
});

// What main tells of the gaps, over every one of them.
const unreadOf = (gaps: Gap[]) =>
  unreadEnvironments({ environments, unread: unreadOfGaps(gaps, environments) });

describe("unreadEnvironments", () => {
  it("takes a gap naming an environment as that environment of that source, alone", () => {
    const unread = unreadOf([gap("HTTP 503", { environmentId: "x" })]);
    expect([...unread.keys()]).toEqual([environmentKey("ledger", "x")]);
    expect(unread.get(environmentKey("ledger", "x"))).toEqual({ because: "HTTP 503", scope: "environment" });
  });

  it("takes a gap naming none as every environment of its source, the others' counts kept", () => {
    const unread = unreadOf([gap("leases[2] could not be read")]);
    expect([...unread.keys()].sort()).toEqual(
      [environmentKey("ledger", "x"), environmentKey("ledger", "y"), environmentKey("ledger", null)].sort(),
    );
    expect(unread.get(environmentKey("ledger", "y"))).toEqual({
      because:
        "leases[2] could not be read; it names no environment, so a lease not read may be this environment's.",
      scope: "any-environment",
    });
  });

  it("keeps the listed environments of a source whose gap may hide only environments it did not list", () => {
    const gaps = [gap("environments[2] could not be read", { unlistedOnly: true })];
    expect(unreadOf(gaps).size).toBe(0);
  });

  it("keeps a gap's own words for the environment it names, over one naming none", () => {
    const gaps = [gap("leases[2] could not be read"), gap("HTTP 503", { environmentId: "x" })];
    expect(unreadOf(gaps).get(environmentKey("ledger", "x"))?.because).toBe("HTTP 503");
  });
});

describe("unreadWords", () => {
  it("says leases not read only of an environment a gap names, and of one a gap naming none leaves uncounted that its count is not known", () => {
    const gaps = [gap("HTTP 503", { environmentId: "x" }), gap("leases[2] could not be read")];
    const unread = unreadOf(gaps);
    expect(unreadWords(unread.get(environmentKey("ledger", "x"))!)).toBe("leases not read");
    expect(unreadWords(unread.get(environmentKey("ledger", "y"))!)).toBe("count not known");
  });
});
