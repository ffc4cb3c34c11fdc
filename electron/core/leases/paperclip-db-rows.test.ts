import { describe, expect, it } from "vitest";
import { isTrimmableMetadata } from "../../../shared/domain/scanned-metadata.js";
import {
  type DatabaseLeaseRow,
  databaseRowObject,
  LEASE_FIELDS,
  leaseRowFromDatabase,
  type MetadataRead,
  passesHandCheck,
} from "./paperclip-db-rows.js";
import { HOLDER_NAMES } from "./paperclip-db-schema.js";
import { parseLeaseRow } from "./rows.js";

/** The names a database with every naming table reads. */
const ALL_NAMES = new Set(HOLDER_NAMES);

const BASE: Record<string, unknown> = {
  id: "00001046-7bc9-411c-a280-f7ac5b72a5f0",
  companyId: "b6760941-3ae4-4c1c-b4cb-89ad01d6e806",
  environmentId: "ca19a9d4-5ecc-4ade-ab8b-7acd44f97156",
  executionWorkspaceId: null,
  issueId: null,
  heartbeatRunId: "da3b4f2f-29c5-461a-aa6c-18b20d2fd16d",
  status: "active",
  leasePolicy: "reuse_by_environment",
  provider: "createos",
  providerLeaseId: "sb-01M8NV6B0KRF7PTCM9DJN1KV73",
  acquiredAt: "2026-11-30T09:04:54.23+00:00",
  lastUsedAt: "2026-11-30T11:57:06.291123+00:00",
  expiresAt: null,
  releasedAt: null,
  failureReason: null,
  cleanupStatus: null,
  metadata: { provider: "createos", apiUrl: "https://api.example", reusableSandboxLease: { id: "x" } },
  createdAt: "2026-12-01T11:20:38+00:00",
  updatedAt: "2026-12-01T11:20:38.9+00:00",
  heartbeatRunStatus: "running",
  agentName: "Builder",
  issueTitle: null,
  issueIdentifier: null,
  executionWorkspaceName: "login-fix worktree",
};

const rowWith = (changes: Record<string, unknown>): DatabaseLeaseRow =>
  LEASE_FIELDS.map((field) => (field in changes ? changes[field] : BASE[field]));

const LONE_SURROGATE = "id-\uD800";
const TIMESTAMPS = [
  "2026-11-30T09:04:54+00:00",
  "2026-11-30T09:04:54.2+00:00",
  "2026-11-30T09:04:54.230123+00:00",
  "0001-01-01T00:00:00+00:00",
  "9999-12-31T23:59:59.999999+00:00",
  "2024-02-29T00:00:00+00:00",
  "2026-02-29T00:00:00+00:00",
  "2026-04-31T00:00:00+00:00",
  "2026-13-01T00:00:00+00:00",
  "2026-11-30T24:00:00+00:00",
  "2026-11-30T23:60:00+00:00",
  "2026-11-30T09:04:54.+00:00",
  "2026-11-30T09:04:54.2345678+00:00",
  "2026-11-30T09:04:54+02:00",
  "2026-11-30 09:04:54+00",
  "0044-03-15T00:00:00+00:00 BC",
  "10000-01-01T00:00:00+00:00",
  "infinity",
  "-infinity",
  "yesterday",
  "",
];
const texts = (max: number) => ["", "x", "x".repeat(max), "x".repeat(max + 1), "😀".repeat(max / 2 + 1)];

/** Every field given values a database column can hold: the usual ones, the edges, and the refused. */
const VARIANTS: Record<string, unknown[]> = {
  id: [null, "", "a", "x".repeat(200), "x".repeat(201), LONE_SURROGATE, "\uDC00"],
  companyId: [null, "", "x".repeat(201), LONE_SURROGATE],
  environmentId: [null, "", "x".repeat(200), LONE_SURROGATE],
  executionWorkspaceId: ["ws", "", LONE_SURROGATE],
  issueId: ["issue", "", "x".repeat(201)],
  heartbeatRunId: [null, "", LONE_SURROGATE],
  status: [null, ...texts(100), "⚠ unheard of"],
  leasePolicy: [null, ...texts(100)],
  provider: [null, ...texts(200)],
  providerLeaseId: [null, ...texts(1000)],
  acquiredAt: [null, ...TIMESTAMPS],
  lastUsedAt: [null, ...TIMESTAMPS],
  expiresAt: TIMESTAMPS,
  releasedAt: TIMESTAMPS,
  failureReason: [null, ...texts(10_000)],
  cleanupStatus: [null, ...texts(100)],
  metadata: [
    null,
    "a string",
    42,
    [1, { token: "t" }],
    { apiKey: "k", nested: { password: "p", keep: 1 } },
    JSON.parse('{"__proto__": {"secret": 1}, "ok": true}'),
  ],
  createdAt: [null, ...TIMESTAMPS],
  updatedAt: [null, ...TIMESTAMPS],
  heartbeatRunStatus: [null, ...texts(100)],
  agentName: [null, ...texts(400)],
  issueTitle: ["Fix the login page", ...texts(400)],
  issueIdentifier: ["ACME-12", "x".repeat(401)],
  executionWorkspaceName: [null, "😀".repeat(201)],
};

function bothWays(values: DatabaseLeaseRow, change: string | undefined, read: MetadataRead) {
  const fast = leaseRowFromDatabase(values, change, read, ALL_NAMES);
  const object = databaseRowObject(values, change, ALL_NAMES);
  if (read === "scanned" && isTrimmableMetadata(object.metadata)) object.partialMetadata = true;
  return { fast, schema: parseLeaseRow(object) };
}

describe("a database lease row checked by hand", () => {
  it("is built directly when it is an ordinary row", () => {
    expect(passesHandCheck(rowWith({}), undefined)).toBe(true);
    expect(passesHandCheck(rowWith({ environmentId: null }), "deleted")).toBe(true);
  });

  it("reads every edge value exactly as the lease schema does: the same row, or the same message", () => {
    let checkedByHand = 0;
    let refused = 0;
    for (const [field, values] of Object.entries(VARIANTS)) {
      for (const value of values) {
        for (const [change, read] of [
          [undefined, "whole"],
          [undefined, "scanned"],
          ["deleted", "scanned"],
          [`now ${"x".repeat(200)}`, "whole"],
        ] as const) {
          const row = rowWith({ [field]: value });
          const { fast, schema } = bothWays(row, change, read);
          const label = `${field} = ${JSON.stringify(value)?.slice(0, 40)}, change ${change?.slice(0, 10)}, ${read}`;
          expect(fast, label).toStrictEqual(schema);
          // The same fields in the same order, so a row serialises the same whichever way it was read.
          expect(JSON.stringify(fast), label).toBe(JSON.stringify(schema));
          if (passesHandCheck(row, change, ALL_NAMES)) {
            checkedByHand += 1;
            expect(schema.ok, `${label} passed by hand but the schema refuses it`).toBe(true);
          }
          if (!schema.ok) refused += 1;
        }
      }
    }
    // Both kinds were really tried: rows the check builds itself, and rows the schema refuses.
    expect(checkedByHand).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(50);
  });

  it("takes the timestamps the database writes without asking the schema", () => {
    for (const stamp of TIMESTAMPS.slice(0, 6)) {
      expect(passesHandCheck(rowWith({ acquiredAt: stamp }), undefined), stamp).toBe(true);
    }
    for (const stamp of ["infinity", "10000-01-01T00:00:00+00:00", "0044-03-15T00:00:00+00:00 BC"]) {
      expect(passesHandCheck(rowWith({ acquiredAt: stamp }), undefined), stamp).toBe(false);
    }
  });

  it("never passes by hand a generated timestamp that Date.parse cannot read", () => {
    // A deterministic sweep of near-misses: each character of valid stamps replaced in turn.
    const alphabet = "0123456789-:.T+ Zx";
    let passed = 0;
    for (const stamp of TIMESTAMPS.slice(0, 6)) {
      for (let at = 0; at < stamp.length; at++) {
        for (const character of alphabet) {
          const candidate = stamp.slice(0, at) + character + stamp.slice(at + 1);
          if (!passesHandCheck(rowWith({ acquiredAt: candidate }), undefined)) continue;
          passed += 1;
          expect(Number.isNaN(Date.parse(candidate)), candidate).toBe(false);
        }
      }
    }
    expect(passed).toBeGreaterThan(100);
  });

  it("sets only the names the database has tables for", () => {
    const some = leaseRowFromDatabase(rowWith({}), undefined, "whole", new Set(["agentName"] as const));
    expect(some.ok && some.row.agentName).toBe("Builder");
    expect(some.ok && "executionWorkspaceName" in some.row).toBe(false);
    const none = leaseRowFromDatabase(rowWith({}), undefined, "whole");
    expect(none.ok && HOLDER_NAMES.some((name) => name in none.row)).toBe(false);
  });

  it("drops secret-named metadata keys on the fast way as on the schema's", () => {
    const result = leaseRowFromDatabase(
      rowWith({ metadata: { apiUrl: "https://api.example", nested: [{ apiKey: "k", region: "eu" }] } }),
      undefined,
      "whole",
    );
    expect(result.ok && result.row.metadata).toStrictEqual({
      apiUrl: "https://api.example",
      nested: [{ region: "eu" }],
    });
  });
});
