import { describe, expect, it } from "vitest";
import { ROW_FLAGS } from "../domain/codes.js";
import type { ClassifiedLease } from "../domain/inventory.js";
import { makeInventoryFixture } from "./inventory-fixture.js";
import {
  decodeInventoryRows,
  encodeInventory,
  InventoryViewSchema,
  LEASE_COLUMNS,
  type LeaseRowView,
} from "./inventory-view.js";

/** What the table should see for a classified lease, computed directly from the main-side value. */
function expectedRow(
  classified: ClassifiedLease,
): Omit<LeaseRowView, "environmentName" | "environmentKnown"> {
  const { lease, verdict, provider } = classified;
  const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000) * 1000;
  const recordedShape =
    lease.metadata !== null && typeof lease.metadata === "object" && !Array.isArray(lease.metadata)
      ? (lease.metadata as { shape?: unknown }).shape
      : undefined;
  return {
    leaseId: lease.id,
    sourceId: classified.sourceId,
    environmentId: classified.environment?.id ?? lease.environmentId,
    companyId: lease.companyId,
    sandboxId: lease.providerLeaseId,
    status: lease.status,
    leasePolicy: lease.leasePolicy,
    headline: verdict.headline,
    provider: provider.code,
    unknownReason: provider.unknownReason,
    ownership: verdict.ownership,
    flags: verdict.flags,
    allowedActions: verdict.allowedActions,
    overridableActions: verdict.overridableActions,
    destroyConfirmation: verdict.destroyConfirmation,
    origin: provider.origin,
    acquiredAtMs: seconds(lease.acquiredAt),
    lastUsedAtMs: seconds(lease.lastUsedAt),
    sharedCount: classified.sharedWithCount ?? classified.sharedWith.length,
    companyName: null,
    actedOnBy: null,
    shape: provider.sandbox?.shape ?? (typeof recordedShape === "string" ? recordedShape : null),
  };
}

describe("compact inventory", () => {
  it("round-trips every row: decode(encode(inventory)) shows what the classified lease says", () => {
    const inventory = makeInventoryFixture({ rows: 3000, seed: 11 });
    const view = encodeInventory(inventory);
    const rows = decodeInventoryRows(InventoryViewSchema.parse(view));
    expect(rows).toHaveLength(inventory.leases.length);
    rows.forEach((row, at) => {
      const classified = inventory.leases[at]!;
      const { environmentName, environmentKnown, ...rest } = row;
      expect(rest).toEqual(expectedRow(classified));
      expect(environmentName).toBe(classified.environment?.name ?? "");
      expect(environmentKnown).toBe(classified.environment !== null);
    });
  });

  it("sends lookup tables once and counts untracked sandboxes per credential", () => {
    const inventory = makeInventoryFixture({ rows: 500, seed: 3 });
    const view = encodeInventory(inventory);
    expect(new Set(view.origins).size).toBe(view.origins.length);
    expect(view.untracked.reduce((sum, entry) => sum + entry.count, 0)).toBe(inventory.untracked.length);
    expect(view.problemCount).toBe(inventory.problems.length);
    expect(view.originHealth).toHaveLength(inventory.origins.length);
  });

  it("gives orphan rows (environment not listed) an environment entry that counts them", () => {
    const inventory = makeInventoryFixture({ rows: 2000, seed: 5 });
    const view = encodeInventory(inventory);
    const orphans = inventory.leases.filter((lease) => lease.environment === null);
    expect(orphans.length).toBeGreaterThan(0);
    const synthetic = view.environments.filter((environment) => !environment.known);
    const counted = synthetic.reduce(
      (sum, environment) => sum + Object.values(environment.counts).reduce((a, b) => a + b, 0),
      0,
    );
    expect(counted).toBe(orphans.length);
  });

  it("cuts the view to one environment when asked", () => {
    const inventory = makeInventoryFixture({ rows: 1000, seed: 9 });
    const target = inventory.environments[0]!.environmentId;
    const view = encodeInventory(inventory, { environmentId: target });
    const rows = decodeInventoryRows(view);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.environmentId === target)).toBe(true);
    expect(view.environmentId).toBe(target);
  });

  it("never carries lease metadata (the workspace marker stays in main)", () => {
    const inventory = makeInventoryFixture({
      rows: 200,
      seed: 2,
      metadata: { secretish: "canary-in-metadata" },
    });
    const json = JSON.stringify(encodeInventory(inventory));
    expect(json).not.toContain("canary-in-metadata");
    const marker = (inventory.leases[0]!.lease.metadata as { marker: string }).marker;
    expect(json).not.toContain(marker);
  });

  it("stays under 250 bytes per row at 20,000 rows, no larger than one tuple per row would be", () => {
    const inventory = makeInventoryFixture({ rows: 20_000, seed: 20 });
    const view = encodeInventory(inventory);
    const bytes = Buffer.byteLength(JSON.stringify(view), "utf8");
    const perRow = bytes / 20_000;
    expect(perRow, `inventory payload is ${perRow.toFixed(1)} bytes per row`).toBeLessThan(250);
    // The same leases as one positional tuple per row, the shape the view had before it had columns
    // (129.7 B/row on this fixture; 127.7 B/row as columns).
    const { leases, ...rest } = view;
    const tuples = leases.leaseId.map((_, row) => LEASE_COLUMNS.map((name) => leases[name][row]));
    const tupleBytes = Buffer.byteLength(JSON.stringify({ ...rest, rows: tuples }), "utf8");
    expect(bytes).toBeLessThanOrEqual(tupleBytes);
  });

  it("refuses columns of different lengths", () => {
    const view = encodeInventory(makeInventoryFixture({ rows: 10, seed: 1 }));
    view.leases.flags.pop();
    expect(InventoryViewSchema.safeParse(view).success).toBe(false);
  });

  it("decodes 20,000 rows with shared code arrays (one array per distinct mask)", () => {
    const view = encodeInventory(makeInventoryFixture({ rows: 20_000, seed: 21 }));
    const rows = decodeInventoryRows(view);
    const distinctFlagArrays = new Set(rows.map((row) => row.flags));
    expect(distinctFlagArrays.size).toBeLessThanOrEqual(2 ** ROW_FLAGS.length);
    expect(Object.isFrozen(rows[0]!.flags)).toBe(true);
  });

  it("carries company names, source gaps, uncertain sandboxes and what a Leasekeeper job did, once per action", () => {
    const inventory = makeInventoryFixture({ rows: 20, seed: 4 });
    const [first, second] = inventory.leases;
    const destroyed = {
      action: "destroy" as const,
      effect: "delete" as const,
      jobId: "job-1",
      at: "2026-11-30T12:00:00.000Z",
      operator: "Ada (ada)",
    };
    // Two rows naming one sandbox point at the same action.
    first!.provider = { ...first!.provider, actedOnBy: destroyed };
    second!.provider = { ...second!.provider, actedOnBy: destroyed };
    inventory.companies = [{ id: first!.lease.companyId, name: "Acme Robotics" }];
    inventory.gaps = [{ source: "paperclip", origin: null, message: "environment 2 could not be parsed" }];
    const sandbox = { id: "sbx_maybe", status: "running" };
    inventory.untrackedUncertain = [
      {
        sandboxId: "sbx_maybe",
        origin: "https://o",
        credential: "ops",
        status: "running",
        sandbox,
        reason: "cannot tell",
      },
    ];
    const view = InventoryViewSchema.parse(encodeInventory(inventory));
    const rows = decodeInventoryRows(view);
    expect(rows[0]).toMatchObject({ companyName: "Acme Robotics", actedOnBy: destroyed });
    expect(rows[1]!.actedOnBy).toEqual(destroyed);
    expect(view.actedOn).toEqual([destroyed]);
    expect(rows.slice(2).every((row) => row.actedOnBy === null)).toBe(true);
    expect(view.gaps).toEqual(inventory.gaps);
    expect(view.untrackedUncertain).toEqual([
      { credential: "ops", origin: "https://o", count: 1, reason: "cannot tell" },
    ]);
    expect(view.untracked.some((entry) => entry.credential === "ops" && entry.origin === "https://o")).toBe(
      false,
    );
  });
});
