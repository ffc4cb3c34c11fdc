import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChannelResponse, Result } from "../../../shared/contract/index.js";
import type { PlanPreview } from "../../../shared/contract/plan-preview.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import type { Core } from "../compose/index.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  markerWorld,
  running,
} from "../markers/testing/marker-world.js";
import { withForcedProofs } from "./forced-proofs.js";
import { openMarkerWorldApp } from "./testing/marker-world-app.js";

// A plan's forced items are proven before the typed confirmation is asked, through the real core against
// the simulator (whose sandboxes hold planted markers); the proof then goes into the destroy's audit entry.

const OTHER_COMPANY = "99999999-9999-4999-8999-999999999999";
const EXEC = "POST /v1/sandboxes/:id/exec";

describe("proof before typed confirmation", () => {
  const foreign = markedRow("sb-foreign", 1, { companyId: OTHER_COMPANY });
  const owned = markedRow("sb-owned", 2);
  const lostItsSandbox = markedRow(null, 3);
  const alsoForeign = markedRow("sb-foreign-2", 4, { companyId: OTHER_COMPANY });
  let w: MarkerWorld;
  let app: Core;

  beforeAll(async () => {
    w = await markerWorld(
      [
        running("sb-foreign", holding(1)),
        running("sb-owned", holding(2)),
        running("sb-orphan", holding(3)),
        running("sb-foreign-2", holding(4)),
      ],
      [foreign, owned, lostItsSandbox, alsoForeign],
    );
    app = await openMarkerWorldApp(w);
  }, 30_000);
  afterAll(async () => {
    await app?.close();
    await w?.stop();
  });

  const plan = async (request: unknown) => {
    const answer = (await app.handlers["actions:plan"](request, { host: "test" })) as Result<
      ChannelResponse<"actions:plan">
    >;
    if (!answer.ok) throw new Error(answer.error.message);
    return answer.data;
  };

  it("proves each forced item before the plan is shown, and reads nothing for one a click confirms", async () => {
    w.sim.reset();
    const preview = await plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: [foreign.id, owned.id] },
    });
    const forcedItem = preview.items.find((item) => item.leaseId === foreign.id)!;
    const clickItem = preview.items.find((item) => item.leaseId === owned.id)!;
    expect(forcedItem.confirmation).toBe("typed-id");
    expect(clickItem.confirmation).toBe("click");
    expect(preview.forcedProofs?.[forcedItem.itemId]).toMatchObject({
      answer: "proven",
      sandboxId: "sb-foreign",
    });
    expect(preview.forcedProofs?.[clickItem.itemId]).toBeUndefined();
    expect(preview.unprovenForced).toBe(0);
    const stats = w.sim.stats();
    expect(stats.perSandbox["sb-foreign"]?.[EXEC]).toBe(1);
    expect(stats.perSandbox["sb-owned"]?.[EXEC]).toBeUndefined();
  });

  it("names the row an untracked sandbox's marker belongs to before its destroy is confirmed", async () => {
    const preview = await plan({
      action: "destroy",
      selection: { kind: "untracked", credential: "account", sandboxIds: ["sb-orphan"] },
    });
    const item = preview.items[0]!;
    expect(item.confirmation).toBe("typed-id");
    const proof = preview.forcedProofs?.[item.itemId];
    expect(proof?.answer).toBe("another-lease");
    expect(proof?.owners.map((owner) => owner.leaseId)).toEqual([lostItsSandbox.id]);
  });

  it("reads no more forced items than a plan may, and counts the ones it left unread", async () => {
    const { plan } = await app.engine!.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: [foreign.id, alsoForeign.id] },
    });
    w.sim.reset();
    const preview = await withForcedProofs(plan, w.service, { limit: 1 });
    expect(Object.keys(preview.forcedProofs ?? {})).toHaveLength(1);
    expect(preview.unprovenForced).toBe(1);
    expect(w.sim.stats().byRoute[EXEC]).toEqual({ "200": 1 });
  });

  it("prints each forced item's proof in `leasekeeper plan`, read as the dialog reads it", async () => {
    const cli = (args: string[]) => runCliCaptured(args, w);
    const args = ["plan", "--action", "destroy", "--lease", foreign.id, "--lease", owned.id];
    w.sim.reset();
    const text = await cli(args);
    expect(text.code, text.stderr).toBe(0);
    const section = text.stdout.split("Before you type a sandbox id back, its workspace marker says:\n")[1];
    expect(section?.split("\n")[0]).toMatch(/^ {2}sb-foreign {2}proven {2}\S/);
    expect(section).not.toContain("sb-owned");
    expect(w.sim.stats().perSandbox["sb-foreign"]?.[EXEC]).toBe(1);
    expect(w.sim.stats().perSandbox["sb-owned"]?.[EXEC]).toBeUndefined();

    const json = await cli([...args, "--json"]);
    const preview = JSON.parse(json.stdout) as PlanPreview;
    const forcedItem = preview.items.find((item) => item.leaseId === foreign.id)!;
    expect(preview.forcedProofs?.[forcedItem.itemId]).toMatchObject({
      answer: "proven",
      sandboxId: "sb-foreign",
    });
    expect(`${text.stdout}${json.stdout}`).not.toContain(foreign.metadata.marker);
  });

  it("keeps the proof in the audit entry of the destroy taken on the proven sandbox", async () => {
    const preview = await plan({ action: "destroy", selection: { kind: "leases", leaseIds: [foreign.id] } });
    const executed = await app.handlers["actions:execute"](
      { planId: preview.planId, confirmSandboxIds: ["sb-foreign"] },
      { host: "test" },
    );
    if (!executed.ok) throw new Error(executed.error.message);
    const job = await app.engine!.waitForJob((executed.data as { jobId: string }).jobId);
    expect(job.items[0]?.state).toBe("confirmed");
    const entries = (await app.engine!.queryAudit({ action: "destroy" })).entries;
    const item = entries.find((entry) => entry.kind === "item" && entry.sandboxId === "sb-foreign")!;
    expect(item.evidence?.markerProof).toMatchObject({ answer: "proven", markerPrefix: "00000001" });
    expect(JSON.stringify(entries)).not.toContain(foreign.metadata.marker);
  });
});
