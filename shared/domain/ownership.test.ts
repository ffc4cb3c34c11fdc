import { describe, expect, it } from "vitest";
import type { OwnershipCode } from "./codes.js";
import { ownership } from "./ownership.js";
import {
  COMPANY,
  environment,
  meta,
  OLD_ORIGIN,
  ORIGIN,
  OTHER_COMPANY,
  OTHER_ENV_ID,
  row,
} from "./test-fixtures.js";

describe("ownership: the plugin's metadataMatches as the host calls it for this row", () => {
  it("an instance-scoped environment owns every company's rows: the company compared is the row's own", () => {
    const shared = environment({ companyId: null });
    const first = row({ companyId: COMPANY, metadata: meta({ companyId: COMPANY }) });
    const second = row({ companyId: OTHER_COMPANY, metadata: meta({ companyId: OTHER_COMPANY }) });
    expect(ownership(first, shared)).toEqual(["owned"]);
    expect(ownership(second, shared)).toEqual(["owned"]);
  });

  it("metadata naming another company than the row's is foreign, whatever the environment's company", () => {
    const shared = environment({ companyId: null });
    expect(ownership(row({ companyId: OTHER_COMPANY, metadata: meta() }), shared)).toEqual([
      "foreign-company",
    ]);
  });

  it.each<[string, unknown, OwnershipCode[]]>([
    ["all four fields match", meta(), ["owned"]],
    // The plugin compares the recorded text with its own parse's origin, so a recorded path never matches.
    ["apiUrl recorded with a /v1 suffix", meta({ apiUrl: `${ORIGIN}/v1` }), ["api-url-not-origin"]],
    ["apiUrl recorded with a trailing /v1/", meta({ apiUrl: `${ORIGIN}/v1/` }), ["api-url-not-origin"]],
    ["apiUrl recorded with a trailing slash", meta({ apiUrl: `${ORIGIN}/` }), ["api-url-not-origin"]],
    ["provider is another plugin", meta({ provider: "plugin:e2b:sandbox" }), ["foreign-provider"]],
    ["company differs", meta({ companyId: OTHER_COMPANY }), ["foreign-company"]],
    [
      "environment differs (copied environment)",
      meta({ environmentId: OTHER_ENV_ID }),
      ["foreign-environment"],
    ],
    [
      "provider, company and environment all differ, in that order",
      meta({ provider: "ssh", companyId: OTHER_COMPANY, environmentId: OTHER_ENV_ID }),
      ["foreign-provider", "foreign-company", "foreign-environment"],
    ],
    [
      "a foreign row never also says api-url-changed",
      meta({ companyId: OTHER_COMPANY, apiUrl: OLD_ORIGIN }),
      ["foreign-company"],
    ],
    ["apiUrl was edited after acquisition", meta({ apiUrl: OLD_ORIGIN }), ["api-url-changed"]],
    // parseConfig throws on these, so every call on the lease fails before the comparison.
    ["recorded apiUrl is missing", meta({ apiUrl: undefined }), ["config-rejected"]],
    ["recorded apiUrl is a number", meta({ apiUrl: 443 }), ["config-rejected"]],
    [
      "recorded apiUrl breaks the URL rule and differs",
      meta({ apiUrl: "http://remote.test" }),
      ["config-rejected"],
    ],
    ["metadata is null", null, ["metadata-missing"]],
    ["metadata is a string", "createos", ["metadata-missing"]],
    ["metadata is an array", [meta()], ["metadata-missing"]],
    ["metadata is an empty object", {}, ["metadata-missing"]],
    [
      "metadata nested under providerMetadata (the generic plugin path)",
      { driver: "plugin", providerMetadata: meta() },
      ["metadata-missing"],
    ],
    [
      "ownership keys present but all null",
      { provider: null, companyId: null, environmentId: null, apiUrl: null },
      ["metadata-missing"],
    ],
    ["only companyId recorded", { companyId: COMPANY }, ["foreign-provider", "foreign-environment"]],
    ["metadata is a Date, not a plain object", new Date(0), ["metadata-missing"]],
  ])("%s", (_, metadata, expected) => {
    expect(ownership(row({ metadata }), environment())).toEqual(expected);
  });

  it.each<[string, string | null, OwnershipCode[]]>([
    ["no sandbox id on an owned row", null, ["owned", "no-sandbox-id"]],
    ["an empty sandbox id counts as none", "", ["owned", "no-sandbox-id"]],
    ["a blank sandbox id counts as none", "   ", ["owned", "no-sandbox-id"]],
  ])("%s", (_, providerLeaseId, expected) => {
    expect(ownership(row({ providerLeaseId }), environment())).toEqual(expected);
  });

  it("adds no-sandbox-id after the metadata codes", () => {
    expect(ownership(row({ metadata: null, providerLeaseId: null }), environment())).toEqual([
      "metadata-missing",
      "no-sandbox-id",
    ]);
    expect(
      ownership(row({ metadata: meta({ companyId: OTHER_COMPANY }), providerLeaseId: null }), environment()),
    ).toEqual(["foreign-company", "no-sandbox-id"]);
  });

  it("compares the environment's apiUrl normalised too (/v1 in the config)", () => {
    expect(ownership(row(), environment({ config: { apiUrl: `${ORIGIN}/v1` } }))).toEqual(["owned"]);
  });

  it("refuses a recorded apiUrl the plugin's parse rejects, even where the environment records the same", () => {
    const weird = "http://remote.test";
    expect(
      ownership(row({ metadata: meta({ apiUrl: weird }) }), environment({ config: { apiUrl: weird } })),
    ).toEqual(["config-rejected"]);
  });

  it("never matches an environment whose config has no apiUrl", () => {
    expect(ownership(row(), environment({ config: { apiUrl: undefined } }))).toEqual(["api-url-changed"]);
  });

  it("an archived environment still owns its leases", () => {
    expect(ownership(row(), environment({ status: "archived" }))).toEqual(["owned"]);
  });

  describe("orphan rows (no environment to compare with)", () => {
    it.each<[string, unknown, OwnershipCode[]]>([
      ["createos metadata is foreign to every environment", meta(), ["foreign-environment"]],
      [
        "another provider's metadata says so too",
        meta({ provider: "ssh" }),
        ["foreign-provider", "foreign-environment"],
      ],
      ["missing metadata stays metadata-missing", null, ["metadata-missing"]],
    ])("%s", (_, metadata, expected) => {
      expect(ownership(row({ environmentId: null, metadata }), null)).toEqual(expected);
    });
  });

  describe("rows listed under an environment their source could not read", () => {
    it.each<[string, unknown, OwnershipCode[]]>([
      ["createos metadata cannot be told owned or foreign", meta(), ["environment-unread"]],
      // These two do not need the environment: the plugin refuses them whatever it is.
      [
        "another provider's metadata is foreign still",
        meta({ provider: "ssh" }),
        ["foreign-provider", "environment-unread"],
      ],
      ["missing metadata stays metadata-missing", null, ["metadata-missing"]],
    ])("%s", (_, metadata, expected) => {
      expect(ownership(row({ metadata, environmentUnread: true }), null)).toEqual(expected);
    });

    it("no sandbox id is said beside it", () => {
      expect(ownership(row({ providerLeaseId: null, environmentUnread: true }), null)).toEqual([
        "environment-unread",
        "no-sandbox-id",
      ]);
    });
  });

  it("a row of another company than its company-scoped environment's is its own finding, not foreign", () => {
    expect(ownership(row(), environment({ companyId: OTHER_COMPANY }))).toEqual([
      "owned",
      "company-scope-mismatch",
    ]);
  });

  it("an instance-scoped environment never makes that finding", () => {
    expect(
      ownership(
        row({ companyId: OTHER_COMPANY, metadata: meta({ companyId: OTHER_COMPANY }) }),
        environment({ companyId: null }),
      ),
    ).toEqual(["owned"]);
  });

  it("compares the recorded environment with the row's own environmentId", () => {
    expect(ownership(row({ environmentId: OTHER_ENV_ID }), environment())).toEqual(["foreign-environment"]);
  });
});
