import { describe, expect, it } from "vitest";
import {
  computeLeaseRepair,
  type LeaseRepair,
  type RepairOutcome,
} from "../../../shared/domain/lease-repair.js";
import type { MarkerProof } from "../../../shared/domain/marker-proof.js";
import { environment, MARKER, NOW, ORIGIN, row } from "../../../shared/domain/test-fixtures.js";
import { repairJson } from "./repair-json.js";
import { PAPERCLIP_SCHEMA, repairSql, repairStatement } from "./repair-sql.js";

const ID = "44444444-4444-4444-8444-000000000001";
const SEEN = "2026-09-10T11:00:00.123Z";
const GENERATED = "2026-09-10T12:00:00.000Z";

function repairOf(metadata: unknown, overrides: Record<string, unknown> = {}, id = ID): RepairOutcome {
  const proof: MarkerProof = {
    subject: { kind: "lease", sourceId: "paperclip", leaseId: id },
    sandboxId: "sbx_1",
    origin: ORIGIN,
    sandboxStatus: "running",
    answer: "proven",
    reason: null,
    owners: [],
    markerPrefix: MARKER.slice(0, 8),
    message: "proven",
    readAt: NOW.toISOString(),
  };
  return computeLeaseRepair({
    sourceId: "paperclip",
    lease: row({ id, metadata, updatedAt: SEEN, ...overrides }),
    environment: environment(),
    proof,
    now: NOW,
  });
}

const lost = repairOf({ marker: MARKER, note: "it's a \\ test" }) as LeaseRepair;
const active = repairOf({ marker: MARKER }, { status: "active" }, "44444444-4444-4444-8444-000000000002");
const foreign = repairOf(
  { provider: "evil'\n; DROP TABLE environment_leases; --", marker: MARKER },
  {},
  "44444444-4444-4444-8444-000000000003",
);

describe("repair SQL", () => {
  const sql = repairSql([lost, active, foreign], { handBack: false, generatedAt: GENERATED });
  const statements = sql
    .trimEnd()
    .split("\n")
    .filter((line) => !line.startsWith("--"));

  it("is one transaction of compare-and-set UPDATEs, and names the schema commit it was written for", () => {
    expect(sql).toContain(`${PAPERCLIP_SCHEMA.repo}@${PAPERCLIP_SCHEMA.commit}`);
    expect(statements.filter((line) => line === "BEGIN;")).toHaveLength(1);
    expect(statements.at(-1)).toBe("COMMIT;");
    expect(statements.filter((line) => line.startsWith("UPDATE environment_leases"))).toHaveLength(2);
    expect(sql).toContain(
      `WHERE id = '${ID}'\n   AND date_trunc('milliseconds', updated_at) = '${SEEN}'::timestamptz;`,
    );
  });

  it("stores the whole repaired metadata as a quoted jsonb literal", () => {
    const literal = sql.match(/SET metadata = (E?'(?:[^']|'')*')::jsonb/)![1]!;
    const body = literal.startsWith("E'")
      ? literal.slice(2, -1).replaceAll("\\\\", "\\")
      : literal.slice(1, -1);
    expect(JSON.parse(body.replaceAll("''", "'"))).toEqual(lost.metadata);
  });

  it("names a refused row in a comment that a hostile value cannot break out of", () => {
    expect(foreign.ok).toBe(false);
    expect(statements.join("\n")).not.toContain("DROP TABLE");
    expect(sql).toMatch(
      /^-- Not repaired: lease 44444444-4444-4444-8444-000000000003: The metadata names another provider/m,
    );
  });

  it("says which fields could not be restored", () => {
    expect(sql).toContain("-- reusableSandboxLease not restored: The reuse fingerprint");
  });

  it("hands a proven row back to Paperclip's sweep only when no run may hold it", () => {
    const handBack = repairSql([lost, active], { handBack: true, generatedAt: GENERATED });
    expect(handBack.match(/status = 'pending_cleanup'/g)).toHaveLength(1);
    expect(handBack).toContain("   AND status = 'released';");
    expect(handBack).toContain("-- Not handed back: The row is active");
  });

  it("says there is nothing to do when every row is refused, without a transaction", () => {
    const none = repairSql([foreign], { handBack: false, generatedAt: GENERATED });
    expect(none).not.toContain("BEGIN");
    expect(none).toContain("-- Nothing to repair.");
  });
});

describe("repair statements for node-postgres and the JSON export", () => {
  it("carries values as parameters, never in the text", () => {
    const statement = repairStatement(lost, { handBack: false });
    expect(statement.text).toBe(
      "UPDATE environment_leases SET metadata = $1::jsonb, updated_at = now() WHERE id = $2 AND date_trunc('milliseconds', updated_at) = $3::timestamptz",
    );
    expect(statement.values).toEqual([JSON.stringify(lost.metadata), ID, SEEN]);
    expect(repairStatement(lost, { handBack: true })).toMatchObject({
      text: expect.stringContaining("status = 'pending_cleanup'") as string,
      values: [JSON.stringify(lost.metadata), ID, SEEN, "released"],
    });
  });

  it("lists repairs with their statements and refusals with their reasons", () => {
    const json = repairJson([lost, foreign], { handBack: false, generatedAt: GENERATED });
    expect(json.paperclipSchema.commit).toBe(PAPERCLIP_SCHEMA.commit);
    expect(json.repairs.map((repair) => repair.leaseId)).toEqual([ID]);
    expect(json.repairs[0]!.statement.values[1]).toBe(ID);
    expect(json.refused.map((refusal) => refusal.reason)).toEqual(["foreign-provider"]);
  });
});
