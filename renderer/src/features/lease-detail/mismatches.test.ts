import { describe, expect, it } from "vitest";
import type { FieldEvidenceView } from "../../../../shared/contract";
import { type KnownNames, markerCheck, mismatches } from "./mismatches";

const names: KnownNames = {
  environmentName: (sourceId, id) =>
    sourceId === "ledger" ? ({ "env-staging": "acme-staging", "env-prod": "acme-prod" }[id] ?? null) : null,
  companyName: (id) => ({ "co-acme": "Acme" })[id] ?? null,
};
const line = (field: string, recorded: string | null, expected: string | null, match = "mismatch") =>
  ({ field, recorded, expected, match }) as FieldEvidenceView;

describe("mismatches: what is wrong, both sides named", () => {
  it("names both environments of a foreign lease, each a link that filters to it", () => {
    const [environment] = mismatches([line("environmentId", "env-staging", "env-prod")], "ledger", names);
    expect(environment).toEqual({
      field: "environmentId",
      recorded: {
        value: "env-staging",
        name: "acme-staging",
        target: {
          kind: "environment",
          sourceId: "ledger",
          environmentId: "env-staging",
          name: "acme-staging",
        },
      },
      expected: {
        value: "env-prod",
        name: "acme-prod",
        target: { kind: "environment", sourceId: "ledger", environmentId: "env-prod", name: "acme-prod" },
      },
    });
  });

  it("keeps an environment no source lists as its whole id, with no link", () => {
    const [environment] = mismatches([line("environmentId", "env-deleted", "env-prod")], "ledger", names);
    expect(environment?.recorded).toEqual({ value: "env-deleted", name: null, target: null });
  });

  it("names a company where a source did, and links either way", () => {
    const [company] = mismatches([line("companyId", "co-other", "co-acme")], "ledger", names);
    expect(company?.recorded).toEqual({
      value: "co-other",
      name: null,
      target: { kind: "company", companyId: "co-other", name: null },
    });
    expect(company?.expected.name).toBe("Acme");
  });

  it("leaves matching fields and the marker out, and keeps long values whole", () => {
    const long = `https://${"a".repeat(300)}.example`;
    const found = mismatches(
      [
        line("provider", "createos", "createos", "match"),
        line("apiUrl", long, "https://api.example"),
        line("marker", "0f3c…", null),
      ],
      "ledger",
      names,
    );
    expect(found.map((entry) => entry.field)).toEqual(["apiUrl"]);
    expect(found[0]?.recorded.value).toBe(long);
  });
});

describe("markerCheck: the marker row in every combination", () => {
  it.each<[string, FieldEvidenceView, string]>([
    ["a recorded, well-formed marker", line("marker", "0f3c2a1b…", null, "match"), "well-formed"],
    ["a recorded marker that is not a UUID", line("marker", "junk…", null, "mismatch"), "malformed"],
    ["no marker recorded", line("marker", null, null, "mismatch"), "not-recorded"],
    ["metadata that is not an object", line("marker", null, null, "not-compared"), "not-compared"],
  ])("%s", (_, evidence, expected) => {
    expect(markerCheck(evidence)).toBe(expected);
  });
});
