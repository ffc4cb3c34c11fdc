import { describe, expect, it } from "vitest";
import type { PlanPreview } from "../../../shared/contract/plan-preview.js";
import { ENVIRONMENT, SECRET_KEY } from "../../../test/fixtures/leasekeeper.js";
import type { ScanReport } from "../inventory/report.js";
import { runCliCaptured } from "./testing/run-captured.js";
import { paperclipSource, SECOND, twoEnvironmentWorld } from "./testing/two-environment-world.js";

// `leasekeeper plan --headline` against a Paperclip instance that fails one environment's lease list:
// a plan of the rows read says which parts were not read, never "0 to do" as if nothing were there.

const ADMIN_TOKEN = "pcp_board_ADMIN_1234";

const world = twoEnvironmentWorld({
  paperclip: { boardKeys: [{ token: ADMIN_TOKEN, instanceAdmin: true, companyIds: [] }] },
});

/** A fresh data directory, its config reading Paperclip and listing the simulator's one account. */
async function planDir() {
  const dir = await world.configDir([paperclipSource(world.paperclip.url)]);
  return { dir };
}

/** `leasekeeper plan --action destroy --headline stale …` from a fresh data directory. */
async function planOk(...args: string[]) {
  const { dir } = await planDir();
  return runCliCaptured(["plan", "--action", "destroy", "--headline", "stale", ...args], {
    env: { LK_KEY: SECRET_KEY, PC_TOKEN: ADMIN_TOKEN },
    dir,
  });
}

type PlanAnswer = PlanPreview & { gaps: ScanReport["gaps"] };

const failSecond = () =>
  world.paperclip.setFaults([{ path: `^/api/environments/${SECOND}/leases$`, status: 503 }]);
const secondsGap = `paperclip: The leases of environment "CreateOS second" could not be read: Paperclip request failed (HTTP 503) while listing leases of environment ${SECOND}.`;

describe("leasekeeper plan --headline when Paperclip fails an environment's lease list", () => {
  it("says the environment asked for was not read, and exits 1", async () => {
    failSecond();
    const planned = await planOk("--environment", SECOND);
    expect(planned.stdout).toContain("0 to do");
    const lines = planned.stdout.split("\n");
    const notRead = lines.indexOf(
      "Not read (1 part of the sources): the leases there are unknown, and none of them is in this plan.",
    );
    expect(notRead, planned.stdout).toBeGreaterThan(-1);
    expect(lines[notRead + 1]).toBe(`  ${secondsGap}`);
    expect(planned.stdout).not.toContain(ADMIN_TOKEN);
    expect(planned.code).toBe(1);
  });

  it("carries the gaps in --json, each naming its environment", async () => {
    failSecond();
    const planned = await planOk("--environment", SECOND, "--json");
    expect(planned.code).toBe(1);
    const plan = JSON.parse(planned.stdout) as PlanAnswer;
    expect(plan.counts.do).toBe(0);
    expect(plan.gaps).toEqual([
      {
        source: "paperclip",
        origin: new URL(world.sim.url).origin,
        environmentId: SECOND,
        message: expect.stringContaining("HTTP 503"),
        scope: "environment",
      },
    ]);
  });

  it("plans what was read in the other environments, and still names the part not read", async () => {
    failSecond();
    const planned = await planOk("--json");
    expect(planned.code).toBe(1);
    const plan = JSON.parse(planned.stdout) as PlanAnswer;
    expect(plan.items.map((item) => item.sandboxId)).toEqual(["sb-main"]);
    expect(plan.gaps.map((gap) => gap.environmentId)).toEqual([SECOND]);
  });

  it("leaves out a gap of an environment the plan is not about", async () => {
    failSecond();
    const planned = await planOk("--environment", ENVIRONMENT, "--json");
    expect(planned.code).toBe(0);
    const plan = JSON.parse(planned.stdout) as PlanAnswer;
    expect(plan.items.map((item) => item.sandboxId)).toEqual(["sb-main"]);
    expect(plan.gaps).toEqual([]);
  });

  it("names the part not read beside a lease id it did not find, and not beside one it found", async () => {
    failSecond();
    const { dir } = await planDir();
    const env = { LK_KEY: SECRET_KEY, PC_TOKEN: ADMIN_TOKEN };
    const plan = (leaseId: string) =>
      runCliCaptured(["plan", "--action", "destroy", "--lease", leaseId, "--json"], { env, dir });
    const missing = await plan("44444444-4444-4444-8444-000000000002");
    expect(missing.code).toBe(1);
    const answer = JSON.parse(missing.stdout) as PlanAnswer;
    expect(answer.items.map((item) => item.skipReason)).toEqual(["not-found"]);
    expect(answer.gaps.map((gap) => gap.environmentId)).toEqual([SECOND]);

    const found = await plan("44444444-4444-4444-8444-000000000001");
    expect(found.code).toBe(0);
    expect((JSON.parse(found.stdout) as PlanAnswer).gaps).toEqual([]);

    // The row found needs the override while the part not read may name its sandbox, and the line says why.
    const text = await runCliCaptured(
      ["plan", "--action", "destroy", "--lease", "44444444-4444-4444-8444-000000000001"],
      { env, dir },
    );
    expect(text.stdout).toContain("needs override: A part of the sources that could not be read may name");
  });

  it("reads as before when every list is read", async () => {
    const planned = await planOk();
    expect(planned.code).toBe(0);
    expect(planned.stdout).not.toContain("Not read");
    expect((JSON.parse((await planOk("--json")).stdout) as PlanAnswer).gaps).toEqual([]);
  });
});
