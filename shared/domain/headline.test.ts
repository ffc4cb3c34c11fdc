import { describe, expect, it } from "vitest";
import type { Headline, OwnershipCode, ProviderCode, RowFlag } from "./codes.js";
import { headline } from "./headline.js";

describe("headline: one word per row, first match wins", () => {
  it.each<[string, OwnershipCode[], ProviderCode, RowFlag[], Headline]>([
    ["owned, paused, nothing flagged", ["owned"], "paused", [], "ok"],
    ["owned, running, in use", ["owned"], "running", ["in-use"], "ok"],
    ["owned, host cleanup, shared", ["owned"], "paused", ["host-cleanup", "shared"], "ok"],
    ["foreign-company", ["foreign-company"], "running", [], "foreign"],
    ["foreign-environment", ["foreign-environment"], "running", [], "foreign"],
    ["foreign-provider", ["foreign-provider"], "running", [], "foreign"],
    ["api-url-changed", ["api-url-changed"], "running", [], "stale"],
    ["metadata-missing", ["metadata-missing"], "running", [], "stale"],
    ["no-sandbox-id", ["owned", "no-sandbox-id"], "unknown", [], "stale"],
    ["stale-config", ["owned"], "paused", ["stale-config"], "stale"],
    ["gone + owned → stale", ["owned"], "gone", [], "stale"],
    ["leaking", ["owned"], "running", ["leaking"], "leaking"],
    ["provider unknown", ["owned"], "unknown", [], "unknown"],
    ["not-visible → unknown", ["owned"], "not-visible", [], "unknown"],
    // Precedence between headlines.
    [
      "foreign beats stale (foreign company and no sandbox id)",
      ["foreign-company", "no-sandbox-id"],
      "unknown",
      [],
      "foreign",
    ],
    ["foreign beats stale-config", ["foreign-environment"], "running", ["stale-config"], "foreign"],
    ["foreign beats leaking", ["foreign-company"], "running", ["leaking"], "foreign"],
    ["foreign beats unknown", ["foreign-provider"], "not-visible", [], "foreign"],
    ["foreign beats gone", ["foreign-company"], "gone", [], "foreign"],
    [
      "stale beats leaking: stale-config + leaking → stale",
      ["owned"],
      "running",
      ["stale-config", "leaking"],
      "stale",
    ],
    ["stale beats leaking: api-url-changed + leaking", ["api-url-changed"], "running", ["leaking"], "stale"],
    ["stale beats unknown: api-url-changed, provider unknown", ["api-url-changed"], "unknown", [], "stale"],
    ["stale beats unknown: stale-config, not visible", ["owned"], "not-visible", ["stale-config"], "stale"],
    [
      "leaking stays leaking beside in-use and shared",
      ["owned"],
      "creating",
      ["leaking", "in-use", "shared"],
      "leaking",
    ],
  ])("%s → %s", (_, ownership, provider, flags, expected) => {
    expect(headline({ ownership, provider, flags })).toBe(expected);
  });
});

describe("headline of a row whose environment its source could not read", () => {
  it.each<[string, OwnershipCode[], ProviderCode, RowFlag[], string | undefined, Headline]>([
    // Whether the plugin would accept it cannot be told: neither foreign nor ok.
    ["a paused sandbox", ["environment-unread"], "paused", [], "released", "unknown"],
    ["a running sandbox in use", ["environment-unread"], "running", ["in-use"], "active", "unknown"],
    // What the provider and the row say is known whatever the environment is.
    ["a gone sandbox of a live lease", ["environment-unread"], "gone", [], "active", "stale"],
    ["a gone sandbox of a released lease", ["environment-unread"], "gone", [], "released", "closed"],
    ["a released lease still billing", ["environment-unread"], "running", ["leaking"], "released", "leaking"],
    [
      "another provider's metadata",
      ["foreign-provider", "environment-unread"],
      "paused",
      [],
      "active",
      "foreign",
    ],
  ])("%s → %s", (_, ownership, provider, flags, leaseStatus, expected) => {
    expect(headline({ ownership, provider, flags, ...(leaseStatus ? { leaseStatus } : {}) })).toBe(expected);
  });
});
