import { afterEach, describe, expect, it } from "vitest";
import { ownership } from "./ownership.js";
import { explainVerdict, ownershipEvidence } from "./ownership-evidence.js";
import type { LeaseRow } from "./paperclip.js";
import { reconcile } from "./reconcile.js";
import { environment, meta, NOW, ORIGIN, okListing, row, SANDBOX, sandbox } from "./test-fixtures.js";

/**
 * Metadata is whatever a row or a ledger file carried. None of it may throw, pollute a prototype, or be
 * mistaken for a recorded owner because of something inherited.
 */

const HUGE = "x".repeat(100_000);

/** Rows as they arrive from JSON: `__proto__` in JSON text is an own key, not a prototype. */
const hostileMetadata: [string, unknown][] = [
  [
    "__proto__ carrying a fake owner",
    JSON.parse(`{"__proto__": ${JSON.stringify(meta())}, "polluted": true}`),
  ],
  [
    "constructor.prototype payload",
    JSON.parse('{"constructor": {"prototype": {"polluted": true}}, "provider": "createos"}'),
  ],
  [
    "own keys named like Object.prototype methods",
    JSON.parse('{"hasOwnProperty": 1, "toString": "x", "valueOf": "y", "provider": "createos"}'),
  ],
  [
    "100 kB strings in every field",
    meta({ provider: HUGE, companyId: HUGE, apiUrl: `https://${HUGE}.test`, marker: HUGE, shape: HUGE }),
  ],
  [
    "numbers where strings are expected",
    meta({ provider: 1, companyId: 2, environmentId: 3, apiUrl: 4, marker: 5, shape: 6 }),
  ],
  ["arrays where strings are expected", meta({ provider: ["createos"], apiUrl: [ORIGIN], marker: [] })],
  [
    "a claim expiry that cannot become a number",
    meta({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: { valueOf: "x", toString: "y" } }),
  ],
  [
    "a claim expiry beyond the range of dates",
    meta({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: 1e300 }),
  ],
  ["an array", [1, 2, 3]],
  ["a number", 42],
  ["a boolean", true],
  ["an object without a prototype", Object.assign(Object.create(null), meta())],
  [
    "deeply nested providerMetadata",
    { providerMetadata: { providerMetadata: { providerMetadata: meta() } } },
  ],
];

describe("hostile metadata", () => {
  afterEach(() => {
    expect(({} as Record<string, unknown>).polluted, "Object.prototype was polluted").toBeUndefined();
  });

  it.each(hostileMetadata)("%s: nothing throws, and the explanation stays short", (_, metadata) => {
    const lease = row({ status: "pending_cleanup", metadata });
    const inventory = reconcile({
      snapshots: [
        {
          sourceId: "s",
          environments: [environment()],
          leases: [lease],
          companies: [],
          problems: [],
          gaps: [],
        },
      ],
      listings: [okListing(ORIGIN, "k", [sandbox(SANDBOX, "running")])],
      now: NOW,
      requests: 1,
    });
    const [classified] = inventory.leases;
    expect(classified).toBeDefined();
    if (classified === undefined) return;
    const evidence = ownershipEvidence(lease, environment());
    expect(evidence).toHaveLength(8);
    for (const line of evidence) expect((line.recorded ?? "").length).toBeLessThanOrEqual(201);
    expect(explainVerdict(classified).length).toBeLessThan(1_000);
  });

  it("a fake owner under __proto__ is not an owner", () => {
    const metadata = JSON.parse(`{"__proto__": ${JSON.stringify(meta())}}`);
    expect(ownership(row({ metadata }), environment())).toEqual(["metadata-missing"]);
  });

  it("an object whose prototype is not Object.prototype is not metadata", () => {
    const metadata = Object.create({ provider: "createos", companyId: "company-a" });
    expect(ownership(row({ metadata }), environment())).toEqual(["metadata-missing"]);
  });

  it("a polluted Object.prototype elsewhere in the process does not make an empty row owned", () => {
    const prototype = Object.prototype as Record<string, unknown>;
    const fake = { provider: "createos", companyId: "company-a", environmentId: "env-prod", apiUrl: ORIGIN };
    try {
      Object.assign(prototype, fake);
      expect(ownership(row({ metadata: {} }), environment())).toEqual(["metadata-missing"]);
      expect(ownership(row({ metadata: { provider: "createos" } }), environment())).toEqual([
        "foreign-company",
        "foreign-environment",
      ]);
    } finally {
      for (const key of Object.keys(fake)) delete prototype[key];
    }
  });

  it("keys named like Object.prototype members are read as data", () => {
    const metadata = JSON.parse('{"hasOwnProperty": 1, "constructor": "x", "provider": "createos"}');
    expect(ownership(row({ metadata }), environment())).toEqual(["foreign-company", "foreign-environment"]);
  });

  it("a 100 kB apiUrl is compared, not trusted, and never shown whole", () => {
    const lease: LeaseRow = row({ metadata: meta({ apiUrl: `https://${HUGE}.test` }) });
    expect(ownership(lease, environment())).toEqual(["api-url-changed"]);
    const apiUrl = ownershipEvidence(lease, environment()).find((line) => line.field === "apiUrl");
    expect(apiUrl?.recorded?.length).toBeLessThanOrEqual(201);
  });

  it("20,000 hostile rows still reconcile", () => {
    const leases = hostileMetadata.flatMap(([, metadata]) =>
      Array.from({ length: 1_500 }, () => row({ metadata })),
    );
    const inventory = reconcile({
      snapshots: [
        { sourceId: "s", environments: [environment()], leases, companies: [], problems: [], gaps: [] },
      ],
      listings: [],
      now: NOW,
      requests: 0,
    });
    expect(inventory.leases).toHaveLength(leases.length);
  });
});
