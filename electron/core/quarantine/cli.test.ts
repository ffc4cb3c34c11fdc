import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { QuarantineList } from "../../../shared/contract/quarantine.js";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import type { QuarantineOutcome } from "./quarantine-service.js";

// `leasekeeper quarantine`, run in-process against the simulator with the real store in the world's dir.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

function cli(args: string[]) {
  return runCliCaptured(args, world!);
}

const PAUSE = "POST /v1/sandboxes/:id/pause";
const DELETE = "DELETE /v1/sandboxes/:id";

describe("leasekeeper quarantine", () => {
  it("quarantines, lists with the time left, cancels, and destroys what is due with --run-due", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-kept" }, { id: "sb-due" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [
        { id: "lease-kept", environmentId: "env-1", sandboxId: "sb-kept" },
        { id: "lease-due", environmentId: "env-1", sandboxId: "sb-due" },
      ],
    });
    const created = await cli(["quarantine", "--lease", "lease-kept", "--hours", "24", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const [outcome] = (JSON.parse(created.stdout) as { outcomes: QuarantineOutcome[] }).outcomes;
    if (!outcome?.ok) throw new Error(`not quarantined: ${created.stdout}`);
    expect((await world.requestsFor("sb-kept"))[PAUSE]).toBe(1);

    const listed = await cli(["quarantine", "--list"]);
    expect(listed.stdout).toContain(outcome.quarantine.quarantineId);
    expect(listed.stdout).toMatch(/sb-kept {2}lease lease-kept {2}destroyed in (23 h 59 min|24 h)/);

    const cancelled = await cli(["quarantine", "--cancel", outcome.quarantine.quarantineId]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    const open = JSON.parse((await cli(["quarantine", "--list", "--json"])).stdout) as QuarantineList;
    expect(open.quarantines).toEqual([]);
    const again = await cli(["quarantine", "--cancel", outcome.quarantine.quarantineId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already ended");

    // A few seconds' quarantine, so that it is due by the time --run-due runs.
    const due = await cli(["quarantine", "--lease", "lease-due", "--hours", "0.0005", "--json"]);
    const [dueOutcome] = (JSON.parse(due.stdout) as { outcomes: QuarantineOutcome[] }).outcomes;
    if (!dueOutcome?.ok) throw new Error(`not quarantined: ${due.stdout}`);
    while (Date.now() < Date.parse(dueOutcome.quarantine.dueAt)) await new Promise((r) => setTimeout(r, 100));
    const ran = await cli(["quarantine", "--run-due", "--json"]);
    expect(ran.code, ran.stderr).toBe(0);
    const { moved } = JSON.parse(ran.stdout) as { moved: Quarantine[] };
    expect(moved.map((quarantine) => [quarantine.sandboxId, quarantine.state])).toEqual([
      ["sb-due", "destroyed"],
    ]);
    expect((await world.requestsFor("sb-due"))[DELETE]).toBe(1);
    expect((await world.requestsFor("sb-kept"))[DELETE]).toBeUndefined();

    const all = JSON.parse((await cli(["quarantine", "--list", "--all", "--json"])).stdout) as QuarantineList;
    expect(all.quarantines.map((quarantine) => quarantine.state).sort()).toEqual(["cancelled", "destroyed"]);
    const audit = await cli(["audit", "--action", "quarantine", "--json"]);
    expect(audit.stdout).toContain('"outcome": "destroyed"');
    // Nine commands, each opening the core: a guard against a hang, not a measure of speed.
  }, 60_000);

  it("--run-due says the waiting quarantines were not judged when the inventory cannot be read, and fails", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-unread" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-unread", environmentId: "env-1", sandboxId: "sb-unread" }],
    });
    const due = await cli(["quarantine", "--lease", "lease-unread", "--hours", "0.0005", "--json"]);
    const [outcome] = (JSON.parse(due.stdout) as { outcomes: QuarantineOutcome[] }).outcomes;
    if (!outcome?.ok) throw new Error(`not quarantined: ${due.stdout}`);
    while (Date.now() < Date.parse(outcome.quarantine.dueAt)) await new Promise((r) => setTimeout(r, 100));
    // The lease source can no longer be read, and the file it names (so the reason given) holds a key in use.
    const key = world.env.LK_KEY_A!;
    const config = JSON.parse(readFileSync(world.configFile, "utf8")) as { sources: { path: string }[] };
    config.sources[0]!.path = `gone-${key}.json`;
    writeFileSync(world.configFile, JSON.stringify(config));

    const ran = await cli(["quarantine", "--run-due"]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).not.toContain("Nothing was due");
    expect(ran.stdout).toMatch(
      /^1 waiting quarantine was not judged: the inventory could not be read \(.+\)\.\n$/,
    );
    // Said once, by the command: the core's own "scan failed" line is not said beside it.
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toContain("gone-");
    expect(ran.stdout).not.toContain(key);

    const json = await cli(["quarantine", "--run-due", "--json"]);
    expect(json.code).toBe(1);
    const answer = JSON.parse(json.stdout) as {
      moved: Quarantine[];
      unjudged: { count: number; because: string };
    };
    expect(answer.moved).toEqual([]);
    expect(answer.unjudged.count).toBe(1);
    expect(answer.unjudged.because).not.toBe("");
    expect(json.stdout).not.toContain(key);
    expect((await world.requestsFor("sb-unread"))[DELETE]).toBeUndefined();
  }, 30_000);

  it.each([
    ["no mode", ["quarantine"]],
    ["no hours", ["quarantine", "--lease", "lease-x"]],
    ["zero hours", ["quarantine", "--lease", "lease-x", "--hours", "0"]],
    ["two modes", ["quarantine", "--list", "--run-due"]],
  ])("refuses %s as a usage error", async (_, args) => {
    world = await buildWorld({ sandboxes: [], environments: [], leases: [] });
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("leasekeeper quarantine:");
  });
});
