import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/domain/actions.js";
import { AUDIT_COLUMNS } from "../actions/audit/audit-records.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { openDatabase } from "../store/database.js";
import { runCliCaptured } from "./testing/run-captured.js";

// `leasekeeper audit` lists the newest 10,000 matching entries: it says older ones may match when an
// older one does, and only then; a log of exactly 10,000 is listed whole.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const LISTING_LIMIT = 10_000;
const CUT_WORDS = "older ones may match too";

function cli(args: string[]) {
  return runCliCaptured(args, world!);
}

/** Copies of the plan's own audit entry, as a busy log holds many plans. */
function addCopiesOf(planId: string, copies: number): void {
  const db = openDatabase(path.join(world!.dir, "data"));
  try {
    const columns = AUDIT_COLUMNS.join(", ");
    const copy = db.prepare(
      `INSERT INTO action_audit (${columns}) SELECT ${columns} FROM action_audit WHERE plan_id = ? LIMIT 1`,
    );
    db.transaction(() => {
      for (let n = 0; n < copies; n += 1) copy.run(planId);
    })();
  } finally {
    db.close();
  }
}

describe("leasekeeper audit", () => {
  it("says older entries may match only when one does", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const planned = await cli(["plan", "--action", "destroy", "--lease", "lease-a", "--json"]);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as Plan;

    addCopiesOf(plan.planId, LISTING_LIMIT - 1);
    const whole = await cli(["audit", "--outcome", "planned"]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout.trimEnd().split("\n")).toHaveLength(LISTING_LIMIT);
    expect(whole.stdout).not.toContain(CUT_WORDS);

    addCopiesOf(plan.planId, 1);
    const cut = await cli(["audit", "--outcome", "planned"]);
    expect(cut.code, cut.stderr).toBe(0);
    const lines = cut.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(LISTING_LIMIT + 1);
    expect(lines.at(-1)).toContain(CUT_WORDS);
  }, 60_000);
});
