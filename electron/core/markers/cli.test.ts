import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  marker,
  markerWorld,
  running,
} from "./testing/marker-world.js";

// `leasekeeper prove`, in-process, against the simulator.

const ours = markedRow("sb-ours", 1);
const lost = markedRow(null, 2);
let w: MarkerWorld;

beforeAll(async () => {
  w = await markerWorld(
    [
      running("sb-ours", holding(1)),
      running("sb-orphan", holding(2)),
      { ...running("sb-nap", holding(3)), status: "paused" },
    ],
    [ours, lost],
  );
});
afterAll(() => w?.stop());

function cli(args: string[]) {
  return runCliCaptured(args, w);
}

describe("leasekeeper prove", () => {
  it("prints each lease's and sandbox's markerProof as JSON, with no whole marker", async () => {
    const { code, stdout } = await cli([
      "prove",
      "--lease",
      ours.id,
      "--untracked",
      "sb-orphan",
      "--untracked",
      "sb-nap",
      "--json",
    ]);
    expect(code).toBe(0);
    const printed = JSON.parse(stdout) as {
      proofs: { kind: string; markerProof: { answer: string; owners: { leaseId: string }[] } }[];
      gaps: unknown[];
    };
    expect(printed.gaps).toEqual([]);
    expect(printed.proofs.map((entry) => [entry.kind, entry.markerProof.answer])).toEqual([
      ["lease", "proven"],
      ["untracked", "another-lease"],
      ["untracked", "cannot-read"],
    ]);
    expect(printed.proofs[1]!.markerProof.owners[0]!.leaseId).toBe(lost.id);
    for (const n of [1, 2, 3]) expect(stdout).not.toContain(marker(n));
  });

  it("says in one line per sandbox whose it is", async () => {
    const { code, stdout } = await cli(["prove", "--untracked", "sb-orphan", "--origin", w.sim.url]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      `sandbox sb-orphan  another-lease  This sandbox belongs to lease ${lost.id}, whose row lost its sandbox id.\n`,
    );
  });

  it("asks for something to prove, and names a lease it cannot find", async () => {
    expect((await cli(["prove"])).code).toBe(2);
    expect((await cli(["prove", "--lease", ours.id, "--origin", w.sim.url])).code).toBe(2);
    const missing = await cli(["prove", "--lease", "no-such-lease"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No lease no-such-lease");
  });
});

describe("proofs kept with the inventory", () => {
  it("a later `scan --json`, in a fresh store connection, carries each proven row's and sandbox's markerProof", async () => {
    const proved = await cli([
      "prove",
      "--lease",
      ours.id,
      "--untracked",
      "sb-orphan",
      "--untracked",
      "sb-nap",
    ]);
    expect(proved.code).toBe(0);
    const { code, stdout } = await cli(["scan", "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      leases: { leaseId: string; markerProof?: { answer: string; markerPrefix: string | null } }[];
      untracked: { sandboxId: string; markerProof?: { answer: string; owners: { leaseId: string }[] } }[];
    };
    const row = (id: string) => report.leases.find((entry) => entry.leaseId === id)!;
    const sandbox = (id: string) => report.untracked.find((entry) => entry.sandboxId === id)!;
    expect(row(ours.id).markerProof).toMatchObject({ answer: "proven", markerPrefix: marker(1).slice(0, 8) });
    expect(row(lost.id).markerProof).toBeUndefined();
    expect(sandbox("sb-orphan").markerProof).toMatchObject({
      answer: "another-lease",
      owners: [{ leaseId: lost.id }],
    });
    expect(sandbox("sb-nap").markerProof?.answer).toBe("cannot-read");
    for (const n of [1, 2, 3]) expect(stdout).not.toContain(marker(n));
  });
});
