import { afterEach, describe, expect, it } from "vitest";
import { PLUGIN_MESSAGES } from "../../../shared/domain/codes.js";
import { buildWorld, KEY_A, KEY_B, marker, type World, withTypedCount } from "./testing/world.js";

// The audit log as an auditor meets it: every plan and every item, with the evidence it was judged on,
// queryable, and exportable as CSV and JSON with no key and no full workspace marker anywhere.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe("audit log", () => {
  it("records every plan and item with its evidence, and exports them without a secret or a full marker", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-audit-1" }, { id: "sb-audit-2" }, { id: "sb-audit-3", account: "b" }],
      environments: [
        { id: "env-1", name: '=HYPERLINK("http://evil")', companyId: "company-1", reuseLease: false },
        { id: "env-2", name: "Second", companyId: "company-2", reuseLease: true },
      ],
      leases: [
        // A hand-built row carrying secrets: a key under a credential-like name and one under a plain name.
        {
          id: "lease-a1",
          environmentId: "env-1",
          sandboxId: "sb-audit-1",
          metadata: { apiKey: KEY_A, note: KEY_B, sessionToken: "tok-live-999" },
        },
        {
          id: "lease-a2",
          environmentId: "env-1",
          sandboxId: "sb-audit-2",
          metadata: { companyId: "company-9" },
        },
        { id: "lease-a3", environmentId: "env-2", sandboxId: "sb-audit-3" },
      ],
    });
    const engine = await world.engine();
    const { plan: destroyPlan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-a1", "lease-a2"] },
    });
    await engine.waitForJob(
      (
        await engine.execute(
          withTypedCount(destroyPlan, { planId: destroyPlan.planId, confirmSandboxIds: ["sb-audit-2"] }),
        )
      ).jobId,
    );
    const { plan: releasePlan } = await engine.plan({
      action: "release",
      selection: { kind: "leases", leaseIds: ["lease-a2", "lease-a3"] },
    });
    await engine.waitForJob(
      (await engine.execute(withTypedCount(releasePlan, { planId: releasePlan.planId }))).jobId,
    );

    const entries = (await engine.queryAudit()).entries;
    expect(entries.filter((entry) => entry.kind === "plan").map((entry) => entry.planId)).toEqual([
      destroyPlan.planId,
      releasePlan.planId,
    ]);
    const items = entries.filter((entry) => entry.kind === "item");
    expect(items.map((entry) => [entry.action, entry.leaseId, entry.outcome, entry.reason])).toEqual([
      ["destroy", "lease-a1", "confirmed", null],
      ["destroy", "lease-a2", "confirmed", null],
      // The core's inventory shows the destroy it just confirmed: the row's sandbox is gone, so it is closed.
      ["release", "lease-a2", "skipped", "closed"],
      ["release", "lease-a3", "confirmed", null],
    ]);
    const forced = items[1]!;
    expect(forced).toMatchObject({
      sandboxId: "sb-audit-2",
      origin: world.sim.url,
      environmentId: "env-1",
      companyId: "company-1",
      confirmation: "typed-id",
      override: false,
      httpStatus: 200,
      verdict: { headline: "foreign", ownership: ["foreign-company"] },
      evidence: { companyId: "company-9", marker: `${marker(2).slice(0, 8)}…` },
    });
    expect(forced.durationMs).toBeGreaterThanOrEqual(0);
    expect(forced.operator.length).toBeGreaterThan(0);
    expect(forced.host.length).toBeGreaterThan(0);
    expect(items[3]).toMatchObject({ effect: "pause", environmentName: "Second", jobId: expect.any(String) });

    const { content: csv, cut: csvCut } = await engine.exportAudit("csv");
    const { content: json, cut: jsonCut } = await engine.exportAudit("json");
    // Asked for no limit, an export holds every entry that matches.
    expect([csvCut, jsonCut]).toEqual([false, false]);
    for (const text of [csv, json]) {
      expect(text).not.toContain(KEY_A);
      expect(text).not.toContain(KEY_B);
      expect(text).not.toContain("tok-live-999");
      for (let n = 1; n <= 3; n += 1) expect(text).not.toContain(marker(n));
      for (const id of ["sb-audit-1", "sb-audit-2", "sb-audit-3"]) expect(text).toContain(id);
    }
    expect(csv.trimEnd().split("\r\n")).toHaveLength(1 + entries.length);
    expect(csv).toContain(`'=HYPERLINK(""http://evil"")`);
    const exported = JSON.parse(json) as { kind: string; evidence: Record<string, unknown> | null }[];
    expect(exported).toHaveLength(entries.length);
    expect(exported.filter((entry) => entry.kind === "item").every((entry) => entry.evidence !== null)).toBe(
      true,
    );

    expect(
      (await engine.queryAudit({ environmentId: "env-2" })).entries.map((entry) => entry.leaseId),
    ).toEqual(["lease-a3"]);
    expect((await engine.queryAudit({ action: "release", outcome: "skipped" })).entries).toHaveLength(1);
    expect((await engine.queryAudit({ since: "2999-01-01T00:00:00Z" })).entries).toEqual([]);
    expect((await engine.queryAudit({ outcome: "planned" })).entries).toHaveLength(2);
  });

  it("records refusals with the plugin's message", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-x" }],
      environments: [{ id: "env-1", name: "One", companyId: "company-1", reuseLease: true }],
      leases: [{ id: "lease-x", environmentId: "env-1", sandboxId: "sb-x", metadata: { provider: "e2b" } }],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "release",
      selection: { kind: "leases", leaseIds: ["lease-x"] },
    });
    await engine.waitForJob((await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId);
    expect((await engine.queryAudit({ outcome: "skipped" })).entries).toMatchObject([
      { leaseId: "lease-x", reason: "foreign-provider", message: PLUGIN_MESSAGES.foreignLease },
    ]);
  });
});
