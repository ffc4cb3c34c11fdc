import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MarkerIndex } from "../../../shared/domain/marker-proof.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { environment, leaseRow, SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import type { Core } from "../compose/index.js";
import { holding, marker } from "../markers/testing/marker-world.js";
import { type ChannelCall, channelCaller } from "./testing/app-calls.js";
import { openOneAccountApp } from "./testing/one-account-app.js";

// A proof reads its rows, then the sandboxes, then the rows recording what the reads found. Through the
// composition root, the real inventory thread and its store, a rescan is flipped between the first read
// and the last: the proof must be judged against one inventory, never the rows of one and the recorders
// of the next.

let sim: Simulator;
let dir: string;
let cleanup: () => Promise<void>;
let app: Core;
let call: ChannelCall;

type Row = ReturnType<typeof leaseRow>;

const EXEC = "POST /v1/sandboxes/:id/exec";
const ledger = () => path.join(dir, "ledger.json");
/** A row naming `sandboxId` at the simulator that records marker `n`. */
const markedRow = (sandboxId: string | null, n: number): Row => {
  const row = leaseRow(sim.url, sandboxId);
  return { ...row, metadata: { ...row.metadata, marker: marker(n) } };
};

// The row proven names sb-a, which holds marker 1, and records marker 1. After its config was edited it
// records marker 3, and another row that lost its sandbox id records marker 1: in that inventory, sb-a
// holds the other row's marker.
let proven: Row;
let edited: Row;
let other: Row;

async function writeLedger(leases: Row[]): Promise<void> {
  await writeJson(ledger(), {
    environments: [environment({ config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" } })],
    leases,
  });
}

/** Runs `before` ahead of each of the proof's index reads, and records what each read answered. */
function beforeEachIndexRead(before: () => Promise<void>): (MarkerIndex | null)[] {
  const answers: (MarkerIndex | null)[] = [];
  const read = app.inventory.markerIndex.bind(app.inventory);
  app.inventory.markerIndex = async (markers, scan) => {
    await before();
    const answer = await read(markers, scan);
    answers.push(answer);
    return answer;
  };
  return answers;
}

describe("a proof when a rescan is flipped between its reads", () => {
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    sim = await startSimulator({
      fleet: {
        accounts: [
          {
            apiKey: SECRET_KEY,
            sandboxes: [{ id: "sb-a", status: "running", shape: "s-1vcpu-1gb", files: holding(1) }],
          },
        ],
      },
      rateLimitPerMinute: 0,
    });
    proven = markedRow("sb-a", 1);
    edited = { ...proven, metadata: { ...proven.metadata, marker: marker(3) } };
    other = markedRow(null, 1);
  });

  afterAll(async () => {
    await app?.close();
    await sim?.stop();
    await cleanup?.();
  });

  async function openApp(): Promise<void> {
    await app?.close();
    await writeLedger([proven]);
    app = await openOneAccountApp({
      dir,
      sources: [{ kind: "ledger", name: "ledger", path: ledger() }],
      origin: sim.url,
    });
    call = channelCaller(() => app);
    await app.inventory.refresh();
  }

  it("is read again from its rows and judged against the newer inventory alone", async () => {
    await openApp();
    let rescanned = false;
    const answers = beforeEachIndexRead(async () => {
      if (rescanned) return;
      rescanned = true;
      await writeLedger([edited, other]);
      await app.inventory.refresh();
    });

    sim.reset();
    const { proofs } = await call("markers:prove", { leases: [{ leaseId: proven.id, sourceId: "ledger" }] });

    expect(answers.map((answer) => (answer === null ? "replaced" : "index"))).toEqual(["replaced", "index"]);
    expect(sim.stats().perSandbox["sb-a"]?.[EXEC], "read again: what its row records changed").toBe(2);
    // Judged with the rows the first read gave, sb-a would be proven this row's (it recorded marker 1
    // then); in the inventory now held, the row records marker 3 and marker 1 is the other row's.
    expect(proofs).toHaveLength(1);
    expect(proofs[0]).toMatchObject({ answer: "another-lease", sandboxId: "sb-a" });
    expect(proofs[0]!.owners.map((owner) => owner.leaseId)).toEqual([other.id]);
  });

  it("reads the sandbox once when the row it proves is the same in the newer inventory", async () => {
    await openApp();
    let rescanned = false;
    const answers = beforeEachIndexRead(async () => {
      if (rescanned) return;
      rescanned = true;
      // Another row came: the rescan replaces the inventory, the row proven is as it was.
      await writeLedger([proven, other]);
      await app.inventory.refresh();
    });
    sim.reset();

    const { proofs } = await call("markers:prove", { leases: [{ leaseId: proven.id, sourceId: "ledger" }] });

    expect(answers.map((answer) => (answer === null ? "replaced" : "index"))).toEqual(["replaced", "index"]);
    expect(sim.stats().perSandbox["sb-a"]?.[EXEC]).toBe(1);
    // The recorders are the newer inventory's: the other row records marker 1 too, but names no sandbox
    // while this row names sb-a, which holds it.
    expect(proofs[0]).toMatchObject({ answer: "proven", sandboxId: "sb-a" });
  });

  it("gives up with a conflict, recording nothing, when every attempt is overtaken by a rescan", async () => {
    await openApp();
    const subject = { leases: [{ leaseId: proven.id, sourceId: "ledger" }] };
    const first = await call("markers:prove", subject);
    expect(first.proofs[0]).toMatchObject({ answer: "proven" });

    let edits = 0;
    const answers = beforeEachIndexRead(async () => {
      // Each rescan reads a ledger that changed, so none of them can be taken for the last.
      edits++;
      await writeLedger([
        { ...proven, lastUsedAt: `2026-01-02T04:${String(edits).padStart(2, "0")}:05.000Z` },
      ]);
      await app.inventory.refresh();
    });

    const result = await app.handlers["markers:prove"](subject, { host: "test" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("conflict");
    expect(result.error.message).toMatch(/rescanned 3 times while these sandboxes were being proven/);
    expect(answers).toEqual([null, null, null]);
    // The proof kept is still the first one: nothing of the overtaken attempts was recorded.
    const kept = app.markers.proofFor({ kind: "lease", sourceId: "ledger", leaseId: proven.id });
    expect(kept?.readAt).toBe(first.proofs[0]!.readAt);
  });
});
