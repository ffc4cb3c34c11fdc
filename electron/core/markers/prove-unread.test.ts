import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { holding, type MarkerWorld, markedRow, markerWorld, running } from "./testing/marker-world.js";

// `leasekeeper prove` over a ledger with an entry it could not read: the row recording a sandbox's
// marker may be that entry, so "no lease row records it" is said of the rows read, never of them all.

const ours = markedRow("sb-ours", 1);
// Unreadable (its acquiredAt is no date): a gap, and the row that records sb-orphan's marker.
const unread = { ...markedRow("sb-orphan", 2), acquiredAt: "soon" };
let w: MarkerWorld;

beforeAll(async () => {
  w = await markerWorld([running("sb-ours", holding(1)), running("sb-orphan", holding(2))], [ours, unread]);
});
afterAll(() => w?.stop());

const cli = (args: string[]) => runCliCaptured(args, w);

interface ProveAnswer {
  proofs: { kind: string; markerProof: { answer: string; reason: string | null } }[];
  gaps: { source: string; origin: string | null; message: string; environmentId: string | null }[];
}

const notReadLine =
  "Not read (1 part of the sources): a workspace marker no row read records may be recorded by a row there.";

describe("leasekeeper prove over a ledger with an entry it could not read", () => {
  it("says the part not read beside a marker no row read records, and exits 1", async () => {
    const { code, stdout } = await cli(["prove", "--untracked", "sb-orphan"]);
    const lines = stdout.split("\n");
    expect(lines[0]).toContain("no-marker (unrecorded-marker)");
    const notRead = lines.indexOf(notReadLine);
    expect(notRead, stdout).toBeGreaterThan(0);
    expect(lines[notRead + 1]).toBe("  ledger: leases[1] could not be read");
    expect(code).toBe(1);
  });

  it("carries the gaps in --json", async () => {
    const { code, stdout } = await cli(["prove", "--untracked", "sb-orphan", "--json"]);
    expect(code).toBe(1);
    const answer = JSON.parse(stdout) as ProveAnswer;
    expect(answer.proofs.map((entry) => entry.markerProof.reason)).toEqual(["unrecorded-marker"]);
    expect(answer.gaps).toEqual([
      {
        source: "ledger",
        origin: w.sim.url,
        message: "leases[1] could not be read",
        environmentId: unread.environmentId,
        scope: "environment",
      },
    ]);
  });

  it("names the part not read and exits 0 when no answer depends on it", async () => {
    const { code, stdout } = await cli(["prove", "--lease", ours.id, "--json"]);
    expect(code).toBe(0);
    const answer = JSON.parse(stdout) as ProveAnswer;
    expect(answer.proofs.map((entry) => entry.markerProof.answer)).toEqual(["proven"]);
    expect(answer.gaps).toHaveLength(1);
  });

  it("says a lease id not found may be a row of the part not read", async () => {
    const { code, stderr } = await cli(["prove", "--lease", unread.id]);
    expect(code).toBe(1);
    expect(stderr).toContain(`No lease ${unread.id}`);
    expect(stderr).toContain(
      "1 part of the sources could not be read, and it may be there: ledger: leases[1] could not be read.",
    );
  });

  it("says only of a lease id that it may be in the part not read, not of a sandbox not found", async () => {
    const { code, stderr } = await cli(["prove", "--untracked", "sb-nowhere"]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      "leasekeeper prove: No untracked sandbox sb-nowhere in the current inventory; refresh and try again.\n",
    );
  });
});
