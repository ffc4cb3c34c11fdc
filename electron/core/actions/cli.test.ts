import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Job, Plan } from "../../../shared/domain/actions.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { openDatabase } from "../store/database.js";
import { AuditLog, type AuditRecord } from "./audit/audit-log.js";
import { buildWorld, KEY_B, type World } from "./testing/world.js";

// `leasekeeper plan | apply | jobs | resume | audit`, run in-process against the simulator.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

function cli(args: string[]) {
  return runCliCaptured(args, world!);
}

describe("leasekeeper scan after a destroy", () => {
  it("counts the destroyed sandbox's row closed, out of the attention count", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-leaky" }, { id: "sb-warm", status: "paused" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true }],
      leases: [
        { id: "lease-leaky", environmentId: "env-1", sandboxId: "sb-leaky", status: "expired" },
        { id: "lease-warm", environmentId: "env-1", sandboxId: "sb-warm" },
      ],
    });
    type Report = {
      counts: Record<string, number>;
      leases: { leaseId: string; headline: string; paperclipWill: string }[];
    };
    const scan = async () => JSON.parse((await cli(["scan", "--json"])).stdout) as Report;
    const before = await scan();
    expect(before.counts).toMatchObject({ leaking: 1, ok: 1, closed: 0, attention: 1 });

    const planned = await cli(["plan", "--action", "destroy", "--lease", "lease-leaky", "--json"]);
    const plan = JSON.parse(planned.stdout) as Plan;
    expect((await cli(["apply", "--plan", plan.planId])).code).toBe(0);

    const after = await scan();
    expect(after.counts).toMatchObject({ leaking: 0, ok: 1, closed: 1, attention: 0 });
    expect(after.leases.find((lease) => lease.leaseId === "lease-leaky")).toMatchObject({
      headline: "closed",
      paperclipWill: expect.stringMatching(/^Nothing: .*history/),
    });
  });
});

describe("leasekeeper plan and apply", () => {
  it("plans, skips a forced destroy not confirmed with --confirm, does it once confirmed, and audits it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-cli-own" }, { id: "sb-cli-foreign" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [
        { id: "lease-own", environmentId: "env-1", sandboxId: "sb-cli-own" },
        {
          id: "lease-foreign",
          environmentId: "env-1",
          sandboxId: "sb-cli-foreign",
          metadata: { companyId: "c-9" },
        },
      ],
    });
    const human = await cli([
      "plan",
      "--action",
      "destroy",
      "--lease",
      "lease-own",
      "--lease",
      "lease-foreign",
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/2 to do \(2 delete, 0 pause; 1 need the sandbox id typed back/);
    expect(human.stdout).toContain("type the sandbox id");

    const planned = await cli([
      "plan",
      "--action",
      "destroy",
      "--lease",
      "lease-own",
      "--lease",
      "lease-foreign",
      "--json",
    ]);
    const plan = JSON.parse(planned.stdout) as Plan;

    const first = await cli(["apply", "--plan", plan.planId]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/skipped\s+sb-cli-foreign \(lease lease-foreign\) \[not-confirmed\]/);
    expect(first.stdout).toMatch(/confirmed\s+sb-cli-own \(lease lease-own\) HTTP 200/);
    expect(await world.statusOf("sb-cli-foreign")).toBe("running");

    // A plan runs once: applying it again is refused, names the job that ran it, and sends nothing.
    const firstJobId = /^Job (\S+) /m.exec(first.stdout)?.[1];
    const again = await cli(["apply", "--plan", plan.planId, "--confirm", "sb-cli-foreign"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`already run, by job ${firstJobId}`);
    expect(await world.statusOf("sb-cli-foreign")).toBe("running");

    const replanned = JSON.parse(
      (await cli(["plan", "--action", "destroy", "--lease", "lease-foreign", "--json"])).stdout,
    ) as Plan;
    const second = await cli(["apply", "--plan", replanned.planId, "--confirm", "sb-cli-foreign", "--json"]);
    expect(second.code).toBe(0);
    const job = JSON.parse(second.stdout) as Job;
    expect(job.items.find((item) => item.sandboxId === "sb-cli-foreign")?.state).toBe("confirmed");
    expect((await world.requestsFor("sb-cli-own"))["DELETE /v1/sandboxes/:id"]).toBe(1);
    expect((await world.requestsFor("sb-cli-foreign"))["DELETE /v1/sandboxes/:id"]).toBe(1);

    const jobs = await cli(["jobs", "--json"]);
    expect((JSON.parse(jobs.stdout) as { jobs: Job[] }).jobs.map((entry) => entry.state)).toEqual([
      "completed",
      "completed",
    ]);

    const csv = await cli(["audit", "--csv", "--since", "2000-01-01T00:00:00Z"]);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split("\r\n")[0]).toMatch(/^id,at,kind,operator,host,action/);
    expect(csv.stdout).toContain("sb-cli-foreign");
    const text = await cli(["audit", "--outcome", "confirmed"]);
    expect(text.stdout.trim().split("\n")).toHaveLength(2);
    // Nine commands, each opening the core: a guard against a hang, not a measure of speed.
  }, 60_000);

  it("exits non-zero when an item failed, and refuses bad arguments and unknown plans with one line", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-cli-500" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-500", environmentId: "env-1", sandboxId: "sb-cli-500" }],
      faults: [{ method: "DELETE", path: "^/v1/sandboxes/sb-cli-500$", status: 500 }],
    });
    const plan = JSON.parse(
      (await cli(["plan", "--action", "destroy", "--lease", "lease-500", "--json"])).stdout,
    ) as Plan;
    const applied = await cli(["apply", "--plan", plan.planId]);
    expect(applied.code).toBe(1);
    expect(applied.stdout).toMatch(/failed\s+sb-cli-500 \(lease lease-500\) HTTP 500/);

    expect((await cli(["plan", "--action", "destroy"])).code).toBe(2);
    expect((await cli(["plan", "--action", "explode", "--lease", "x"])).code).toBe(2);
    const unknown = await cli(["apply", "--plan", "no-such-plan"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("leasekeeper apply: No plan with this id; make a new plan.\n");
    const notInterrupted = await cli([
      "resume",
      "--job",
      JSON.parse((await cli(["jobs", "--json"])).stdout).jobs[0].jobId,
    ]);
    expect(notInterrupted.code).toBe(1);
    expect(notInterrupted.stderr).toContain("Only an interrupted job can be resumed.");
  });
});

describe("leasekeeper plan --untracked", () => {
  it("refuses a credential the config does not name, and says when the named one could not be listed", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-named" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-named", environmentId: "env-1", sandboxId: "sb-named" }],
      // The second account's key is refused: its listing, and so its untracked sandboxes, are unknown.
      faults: [{ method: "GET", path: "^/v1/sandboxes$", apiKey: KEY_B, status: 401 }],
    });
    const unknown = await cli(["plan", "--action", "destroy", "--untracked", "charlie"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No credential is named "charlie"');

    const unlisted = await cli(["plan", "--action", "destroy", "--untracked", "bravo"]);
    expect(unlisted.code).toBe(1);
    expect(unlisted.stdout).toMatch(
      /CreateOS could not be listed with bravo at http:\/\/127\.0\.0\.1:\d+ \(unauthorized, HTTP 401\)/,
    );
    const unlistedJson = JSON.parse(
      (await cli(["plan", "--action", "destroy", "--untracked", "bravo", "--json"])).stdout,
    ) as { notListed: { credential: string; reason: string }[] };
    expect(unlistedJson.notListed).toEqual([
      expect.objectContaining({ credential: "bravo", reason: "unauthorized" }),
    ]);

    const listed = await cli(["plan", "--action", "destroy", "--untracked", "alpha", "--json"]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { notListed: unknown[] }).notListed).toEqual([]);
  });
});

describe("leasekeeper audit", () => {
  it("says when the listing holds only the newest 10,000 entries of more that match", async () => {
    world = await buildWorld({
      sandboxes: [],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [],
    });
    const entry = (n: number): AuditRecord => ({
      at: new Date(Date.UTC(2026, 10, 1) + n * 1_000).toISOString(),
      kind: "item",
      operator: "operator",
      host: "host",
      action: "destroy",
      planId: `plan-${n}`,
      jobId: `job-${n}`,
      itemId: `item-${n}`,
      leaseId: `lease-${n}`,
      sandboxId: `sb-${n}`,
      origin: "http://127.0.0.1:9",
      credential: "alpha",
      environmentId: "env-1",
      environmentName: "Agents",
      companyId: "company-1",
      effect: "delete",
      verdict: null,
      evidence: null,
      confirmation: "click",
      override: false,
      outcome: "confirmed",
      reason: null,
      httpStatus: 200,
      durationMs: 10,
      message: null,
    });
    const db = openDatabase(path.join(world.dir, "data"));
    try {
      const log = new AuditLog(db);
      db.transaction(() => {
        for (let n = 0; n < 10_001; n++) log.append([entry(n)]);
      })();
    } finally {
      db.close();
    }
    const cut = await cli(["audit"]);
    expect(cut.code).toBe(0);
    const lines = cut.stdout.trimEnd().split("\n");
    expect(lines.filter((line) => line.includes(" destroy sb-"))).toHaveLength(10_000);
    expect(lines[0]).toContain("sb-1 ");
    expect(lines.at(-1)).toBe(
      "These are the newest 10,000 matching entries, the most a listing shows; older ones may match too: narrow --since and --until, or export them all with --json or --csv.",
    );

    // Narrowed to fewer than that, the listing is whole and says nothing more.
    const narrowed = await cli(["audit", "--since", entry(9_000).at]);
    expect(narrowed.stdout).not.toContain("the most a listing shows");
    expect(narrowed.stdout.trimEnd().split("\n")).toHaveLength(1_001);
  });
});
