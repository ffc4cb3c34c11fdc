import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { readLastPass } from "../janitor/pass-state.js";
import { holding, type MarkerWorld, markedRow, markerWorld, running } from "./testing/marker-world.js";

// A forced destroy of a sandbox no row names, by `leasekeeper watch --act`, over a kept marker proof: the
// proof stands only if its own scan could not have hidden a row recording the marker, and the scan the
// janitor acts on shows no row recording it whose lease goes on, and no part unread that may hold one.

const released = markedRow("sb-elsewhere", 2, { status: "released" });
const live = { ...markedRow(null, 2, { status: "active", heartbeatRunId: "run-7" }), id: "lease-live" };
/** The same row as `live`, as an entry the ledger cannot read (its acquiredAt is no date): a gap. */
const unreadable = { ...live, acquiredAt: "soon" };

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

interface ProofAnswer {
  proofs: { markerProof: { answer: string; owners: { leaseId: string }[]; gapMayRecord?: boolean } }[];
}

/** One pass of a policy destroying every sandbox no row names, as the pass reported it. */
async function destroyUntracked(world: MarkerWorld): Promise<PassReport> {
  writeFileSync(
    path.join(world.dir, "policy.json"),
    JSON.stringify({
      version: 1,
      operator: "night-janitor",
      rules: [{ name: "orphans", select: { kind: "untracked" }, action: "destroy" }],
    }),
  );
  const run = await cli(world, ["watch", "--policy", "policy.json", "--once", "--act", "--json"]);
  const report = await readLastPass(path.join(world.dir, "data"));
  if (report === null) throw new Error(`no pass was reported: ${run.stdout} ${run.stderr}`);
  return report;
}

function orphanStatus(world: MarkerWorld): string | undefined {
  return world.sim
    .sandboxes()
    .flatMap((account) => account.sandboxes)
    .find((sandbox) => sandbox.id === "sb-orphan")?.status;
}

async function proveOrphan(world: MarkerWorld): Promise<ProofAnswer["proofs"][number]["markerProof"]> {
  const { stdout } = await cli(world, ["prove", "--untracked", "sb-orphan", "--json"]);
  const answer = JSON.parse(stdout) as ProofAnswer;
  return answer.proofs[0]!.markerProof;
}

describe("a marker proof for a forced destroy, checked again when the janitor acts", () => {
  it("a proof read while a part of the ledger could not be read does not prove, even once it can be", async () => {
    w = await markerWorld([running("sb-orphan", holding(2))], [released, unreadable]);
    const proof = await proveOrphan(w);
    expect(proof.answer).toBe("another-lease");
    expect(proof.owners.map((owner) => owner.leaseId)).toEqual([released.id]);
    expect(proof.gapMayRecord).toBe(true);

    // The unread entry is gone by the time the janitor acts: nothing in the scan it acts on names the marker's live lease.
    rewriteLedger(w, [released]);
    const pass = await destroyUntracked(w);
    expect(pass.gapCount).toBe(0);
    expect(pass.plan!.rules[0]!.selected).toEqual([]);
    expect(pass.plan!.rules[0]!.skipped[0]!.skip!.reason).toBe("needs-marker-proof");
    expect(pass.plan!.rules[0]!.skipped[0]!.skip!.message).toMatch(/could not be read/);
    expect(orphanStatus(w)).toBe("running");
  });

  it("a live row that records the marker, read after the proof, refuses the destroy", async () => {
    w = await markerWorld([running("sb-orphan", holding(2))], [released, unreadable]);
    expect((await proveOrphan(w)).answer).toBe("another-lease");

    rewriteLedger(w, [released, live]);
    const pass = await destroyUntracked(w);
    expect(pass.gapCount).toBe(0);
    expect(pass.plan!.rules[0]!.selected).toEqual([]);
    expect(pass.plan!.rules[0]!.skipped[0]!.skip!.reason).toBe("needs-marker-proof");
    expect(orphanStatus(w)).toBe("running");
  });

  it("a proof read over every row is refused once a live row records its marker", async () => {
    w = await markerWorld([running("sb-orphan", holding(2))], [released]);
    const proof = await proveOrphan(w);
    expect(proof).toMatchObject({ answer: "another-lease", gapMayRecord: false });

    rewriteLedger(w, [released, live]);
    const pass = await destroyUntracked(w);
    expect(pass.gapCount).toBe(0);
    expect(pass.plan!.rules[0]!.skipped[0]!.skip!.message).toMatch(/lease-live, which is active/);
    expect(orphanStatus(w)).toBe("running");
  });

  it("a proof read over every row, with every row recording the marker ended, still destroys", async () => {
    w = await markerWorld([running("sb-orphan", holding(2))], [released]);
    expect((await proveOrphan(w)).answer).toBe("another-lease");

    const pass = await destroyUntracked(w);
    expect(pass.results.map((result) => result.outcome)).toEqual(["done"]);
    expect(orphanStatus(w)).toBe("destroyed");
  });
});
