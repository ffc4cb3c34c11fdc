import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { readLastPass } from "../janitor/pass-state.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  markerWorld,
  running,
} from "../markers/testing/marker-world.js";

// A janitor's quarantine of a sandbox no row names, confirmed by a kept marker proof, through the CLI
// against the simulator and a ledger: when the quarantine falls due, its destroy goes ahead only if the
// proof still proves over the scan of that moment.

const released = markedRow("sb-elsewhere", 2, { status: "released" });
const live = { ...markedRow(null, 2, { status: "active", heartbeatRunId: "run-7" }), id: "lease-live" };
/** 0.0005 hours: due 1.8 seconds after the pause. */
const QUARANTINE_HOURS = 0.0005;

let w: MarkerWorld | null = null;
afterEach(async () => {
  await w?.stop();
  w = null;
});

const cli = (world: MarkerWorld, args: string[]) => runCliCaptured(args, world);

/** The ledger's rows replaced, as another read of Paperclip would find them. */
function rewriteLedger(world: MarkerWorld, leases: Record<string, unknown>[]) {
  const file = path.join(world.dir, "ledger.json");
  const ledger = JSON.parse(readFileSync(file, "utf8")) as { leases: Record<string, unknown>[] };
  const apiUrl = world.sim.url;
  ledger.leases = leases.map((lease) => ({
    ...lease,
    metadata: { ...(lease.metadata as Record<string, unknown>), apiUrl },
  }));
  writeFileSync(file, JSON.stringify(ledger));
}

/** One acting pass of a policy quarantining every sandbox no row names, as the pass reported it. */
async function quarantinePass(world: MarkerWorld): Promise<PassReport> {
  writeFileSync(
    path.join(world.dir, "policy.json"),
    JSON.stringify({
      version: 1,
      operator: "night-janitor",
      rules: [
        {
          name: "orphans",
          select: { kind: "untracked" },
          action: "quarantine",
          quarantineHours: QUARANTINE_HOURS,
        },
      ],
    }),
  );
  const run = await cli(world, ["watch", "--policy", "policy.json", "--once", "--act", "--json"]);
  const report = await readLastPass(path.join(world.dir, "data"));
  if (report === null) throw new Error(`no pass was reported: ${run.stdout} ${run.stderr}`);
  return report;
}

async function quarantines(world: MarkerWorld): Promise<Quarantine[]> {
  const { stdout } = await cli(world, ["quarantine", "--list", "--all", "--json"]);
  return (JSON.parse(stdout) as { quarantines: Quarantine[] }).quarantines;
}

function orphanStatus(world: MarkerWorld): string | undefined {
  return world.sim
    .sandboxes()
    .flatMap((account) => account.sandboxes)
    .find((sandbox) => sandbox.id === "sb-orphan")?.status;
}

/** Four CLI runs, each opening a core and scanning, and a wait for the due time: slower than most tests. */
const SLOW = 120_000;

const untilDue = () => new Promise((resolve) => setTimeout(resolve, QUARANTINE_HOURS * 3_600_000 + 700));

describe("a quarantine a marker proof confirmed, when it falls due", () => {
  it(
    "is kept, not destroyed, once a live row records the marker",
    async () => {
      w = await markerWorld([running("sb-orphan", holding(2))], [released]);
      const proved = await cli(w, ["prove", "--untracked", "sb-orphan", "--json"]);
      expect(proved.code).toBe(0);

      const first = await quarantinePass(w);
      expect(first.results.map((result) => result.outcome)).toEqual(["done"]);
      expect(await quarantines(w)).toMatchObject([{ sandboxId: "sb-orphan", confirmedByProof: true }]);

      // A run's row now records the marker (it names no sandbox, so it claims none).
      rewriteLedger(w, [released, live]);
      await untilDue();
      const due = await quarantinePass(w);
      expect(due.quarantinesDue).toEqual({ kept: 1 });
      const [kept] = await quarantines(w);
      expect(kept).toMatchObject({ state: "kept", reason: "needs-marker-proof" });
      expect(kept?.message).toContain("no longer proved it");
      expect(kept?.message).toContain("lease lease-live, which is active");
      expect(orphanStatus(w)).toBe("paused");
    },
    SLOW,
  );

  it(
    "is destroyed while the proof still proves",
    async () => {
      w = await markerWorld([running("sb-orphan", holding(2))], [released]);
      expect((await cli(w, ["prove", "--untracked", "sb-orphan", "--json"])).code).toBe(0);

      const first = await quarantinePass(w);
      expect(first.results.map((result) => result.outcome)).toEqual(["done"]);
      await untilDue();
      const due = await quarantinePass(w);
      expect(due.quarantinesDue).toEqual({ destroyed: 1 });
      expect(orphanStatus(w)).toBe("destroyed");
    },
    SLOW,
  );
});
