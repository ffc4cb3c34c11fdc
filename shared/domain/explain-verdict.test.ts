import { describe, expect, it } from "vitest";
import { explainVerdict, explainVerdictParts } from "./explain-verdict.js";
import type { ClassifiedLease } from "./inventory.js";
import type { LeaseRow } from "./paperclip.js";
import { indexListings, observeProvider } from "./provider-state.js";
import {
  COMPANY,
  ENV_ID,
  environment,
  meta,
  NOW,
  OLD_ORIGIN,
  ORIGIN,
  OTHER_COMPANY,
  OTHER_ENV_ID,
  okListing,
  row,
  SANDBOX,
  sandbox,
} from "./test-fixtures.js";
import { classifyLease } from "./verdict.js";

function classified(lease: LeaseRow, origin = ORIGIN): ClassifiedLease {
  const env = environment();
  const provider = observeProvider(
    lease,
    env,
    indexListings([okListing(origin, "k", [sandbox(SANDBOX, "running")])]),
  );
  const verdict = classifyLease(lease, env, provider, { now: NOW, otherRowsOnSandbox: [] });
  return { sourceId: "src", lease, environment: env, verdict, provider, sharedWith: [] };
}

const refs = (lease: ClassifiedLease) =>
  explainVerdictParts(lease).filter((part) => typeof part !== "string");

describe("the explanation names environments and companies by reference", () => {
  it.each<[string, ClassifiedLease, unknown[]]>([
    [
      "foreign-environment: the recorded environment and the one it is listed under",
      classified(row({ metadata: meta({ environmentId: OTHER_ENV_ID }) })),
      [
        { ref: "environment", sourceId: "src", id: OTHER_ENV_ID, text: OTHER_ENV_ID },
        { ref: "environment", sourceId: "src", id: ENV_ID, text: "Production" },
      ],
    ],
    [
      "foreign-company: the recorded company and the row's",
      classified(row({ metadata: meta({ companyId: OTHER_COMPANY }) })),
      [
        { ref: "company", id: OTHER_COMPANY, text: OTHER_COMPANY },
        { ref: "company", id: COMPANY, text: COMPANY },
      ],
    ],
    [
      "stale-config: the environment whose config changed",
      classified(row({ metadata: meta({ shape: "s-8vcpu-16gb" }) })),
      [{ ref: "environment", sourceId: "src", id: ENV_ID, text: "Production" }],
    ],
    [
      "api-url-changed: the environment whose URL changed",
      classified(row({ metadata: meta({ apiUrl: OLD_ORIGIN }) }), OLD_ORIGIN),
      [{ ref: "environment", sourceId: "src", id: ENV_ID, text: "Production" }],
    ],
  ])("%s", (_, lease, expected) => {
    expect(refs(lease)).toEqual(expected);
  });

  it("reads as the plain sentence when every reference is quoted", () => {
    const lease = classified(row({ metadata: meta({ environmentId: OTHER_ENV_ID }) }));
    const quoted = explainVerdictParts(lease)
      .map((part) => (typeof part === "string" ? part : `"${part.text}"`))
      .join("");
    expect(quoted).toBe(explainVerdict(lease));
    expect(quoted).toMatch(
      /^This lease's metadata names another environment \("env-staging"\) than "Production", /,
    );
  });

  it("a recorded company that is not a string is quoted as a value, never made a reference", () => {
    const lease = classified(row({ metadata: meta({ companyId: 42 }) }));
    expect(refs(lease)).toEqual([{ ref: "company", id: COMPANY, text: COMPANY }]);
    expect(explainVerdict(lease)).toContain('another company ("42")');
  });
});

describe("the explanation of a row whose environment its source could not read", () => {
  /** The row as a source gives it: listed under ENV_ID, which it could not parse, so no environment. */
  function unread(overrides: Partial<LeaseRow>, status: string): ClassifiedLease {
    const lease = row({ environmentUnread: true, ...overrides });
    const provider = observeProvider(
      lease,
      null,
      indexListings([okListing(ORIGIN, "k", [sandbox(SANDBOX, status)])]),
    );
    const verdict = classifyLease(lease, null, provider, { now: NOW, otherRowsOnSandbox: [] });
    return { sourceId: "src", lease, environment: null, verdict, provider, sharedWith: [] };
  }

  it("names the environment not read and says whether the plugin accepts the lease cannot be told", () => {
    const lease = unread({}, "paused");
    expect(lease.verdict.headline).toBe("unknown");
    expect(explainVerdict(lease)).toBe(
      `This lease is listed under environment "${ENV_ID}", which src could not read, so whether Paperclip's plugin would accept it cannot be told. If nobody needs it, destroy it at ${ORIGIN} by typing its sandbox id back.`,
    );
    expect(refs(lease)).toEqual([{ ref: "environment", sourceId: "src", id: ENV_ID, text: ENV_ID }]);
  });

  it("never says the environment is gone, whatever else decides the headline", () => {
    const cases = [
      unread({ metadata: null, status: "active" }, "paused"),
      unread({ metadata: meta({ provider: "ssh" }), status: "active" }, "paused"),
      unread({ status: "released" }, "running"),
    ];
    expect(cases.map((lease) => lease.verdict.headline)).toEqual(["stale", "foreign", "leaking"]);
    for (const lease of cases) expect(explainVerdict(lease)).not.toMatch(/gone|deleted|no environment/);
    expect(explainVerdict(cases[0]!)).toContain(
      "if Paperclip calls it (its environment could not be read, so whether Paperclip can make a call for it cannot be told)",
    );
  });
});
