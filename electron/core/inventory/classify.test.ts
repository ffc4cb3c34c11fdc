import { describe, expect, it } from "vitest";
import type { SandboxListing, SourceSnapshot } from "../../../shared/domain/inventory.js";
import { indexListings, observeProvider } from "../../../shared/domain/provider-state.js";
import { reconcile, reconcileSteps } from "../../../shared/domain/reconcile.js";
import { classifyLease } from "../../../shared/domain/verdict.js";
import { generateDemoWorld } from "../../../simulator/index.js";
import { parseEnvironments, parseLeaseRows } from "../leases/rows.js";
import { classifyInSlices } from "./classify.js";

/**
 * A generated world with every verdict the generator plants (foreign, stale, leaking, shared, orphans,
 * unknown statuses) and one credential whose listing failed, read by the real row parser; the listings
 * are built from the fleet as CreateOS would list it.
 */
function worldInput() {
  const world = generateDemoWorld({ size: 3000, seed: "classify-in-slices", environments: 20, accounts: 3 });
  const environments = parseEnvironments(world.ledger.environments, "ledger", "environments");
  const leases = parseLeaseRows(world.ledger.leases, "ledger", "leases");
  const snapshots: SourceSnapshot[] = [
    {
      sourceId: "ledger",
      environments: environments.rows,
      leases: leases.rows,
      companies: [],
      problems: [...environments.problems, ...leases.problems],
      gaps: [],
    },
  ];
  const accountByKey = new Map(world.fleet.accounts.map((account) => [account.apiKey, account]));
  const listings: SandboxListing[] = world.config.credentials.map((credential, at) => {
    const account = accountByKey.get(world.keys[credential.apiKeyEnv]!)!;
    if (at === world.config.credentials.length - 1) {
      return {
        origin: credential.origin,
        credential: credential.name,
        outcome: { ok: false, reason: "server-error", httpStatus: 503 },
      };
    }
    return {
      origin: credential.origin,
      credential: credential.name,
      outcome: {
        ok: true,
        observedAt: "2026-11-30T12:00:00.000Z",
        sandboxes: (account.sandboxes ?? []).map((sandbox) => ({
          id: sandbox.id,
          status: sandbox.status,
          ...(sandbox.shape ? { shape: sandbox.shape } : {}),
        })),
      },
    };
  });
  return { snapshots, listings, now: new Date("2026-11-30T12:00:00Z"), requests: 42 };
}

describe("classifyInSlices", () => {
  it("gives exactly the inventory reconcile gives, row by row", async () => {
    const input = worldInput();
    const expected = reconcile(input);
    const { inventory, stats } = await classifyInSlices(input, { sliceMs: 0 });

    expect(inventory.leases).toHaveLength(expected.leases.length);
    for (let at = 0; at < expected.leases.length; at++) {
      expect(inventory.leases[at], `lease ${expected.leases[at]!.lease.id}`).toEqual(expected.leases[at]);
    }
    expect(inventory).toEqual(expected);
    // The world is varied enough for the comparison to mean something.
    expect(new Set(expected.leases.map((lease) => lease.verdict.headline))).toEqual(
      new Set(["closed", "ok", "foreign", "stale", "leaking", "unknown"]),
    );
    expect(expected.untracked.length).toBeGreaterThan(0);
    expect(stats.slices).toBeGreaterThan(10);
  });

  it("judges every row as the per-row rules do on their own", async () => {
    const input = worldInput();
    const { inventory } = await classifyInSlices(input, { sliceMs: 0 });
    const listingIndex = indexListings(input.listings);
    const rowsById = new Map(input.snapshots[0]!.leases.map((row) => [row.id, row]));
    expect(inventory.leases).toHaveLength(rowsById.size);
    for (const classified of inventory.leases) {
      const { lease, environment } = classified;
      const provider = observeProvider(lease, environment, listingIndex);
      const verdict = classifyLease(lease, environment, provider, {
        now: input.now,
        otherRowsOnSandbox: classified.sharedWith.map((id) => rowsById.get(id)!),
      });
      expect(classified.provider, `provider of ${lease.id}`).toEqual(provider);
      expect(classified.verdict, `verdict of ${lease.id}`).toEqual(verdict);
    }
  });

  it("lets the event loop turn between slices", async () => {
    const input = worldInput();
    let turns = 0;
    let running = true;
    const spin = () => {
      turns += 1;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const { stats } = await classifyInSlices(input, { sliceMs: 1 });
    running = false;
    // Each slice is followed by a turn, in which the spinner runs once.
    expect(turns).toBeGreaterThanOrEqual(stats.slices - 1);
  });

  it("pauses reconcile's steps every few hundred rows, so no slice has to be long", () => {
    const steps = reconcileSteps(worldInput());
    let pauses = 0;
    for (let step = steps.next(); !step.done; step = steps.next()) pauses += 1;
    // 3,000 rows and about as many listed sandboxes, at most ROWS_PER_STEP of either per step.
    expect(pauses).toBeGreaterThan(3000 / 200);
  });

  it("stops when the scan is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("scan cancelled"));
    await expect(classifyInSlices(worldInput(), { signal: controller.signal })).rejects.toThrow(
      "scan cancelled",
    );
  });
});
