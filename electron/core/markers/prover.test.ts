import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MARKER_PATH, type MarkerProof } from "../../../shared/domain/marker-proof.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  marker,
  markerWorld,
  running,
} from "./testing/marker-world.js";

// Every case is planted in the simulator's files and read over real HTTP through the same client and
// origin queue the scan uses; nothing about CreateOS is mocked.

describe("proving markers against the simulator", () => {
  const proven = markedRow("sb-proven", 1);
  const swapped = markedRow("sb-swapped", 3);
  const lostItsSandbox = markedRow(null, 2);
  const bare = markedRow("sb-bare", 4);
  const paused = markedRow("sb-paused", 5);
  const broken = markedRow("sb-broken", 6);
  const stuck = markedRow("sb-stuck", 7);
  const switchedProvider = markedRow("vm-elsewhere", 9, {
    provider: "other-cloud",
    metadata: { provider: "other-cloud", marker: marker(9) },
  });
  const lostOrphan = markedRow(null, 8);

  let w: MarkerWorld;
  beforeAll(async () => {
    w = await markerWorld(
      [
        running("sb-proven", holding(1)),
        running("sb-swapped", holding(2)),
        running("sb-bare"),
        { ...running("sb-paused", holding(5)), status: "paused" },
        running("sb-broken", holding(6)),
        running("sb-stuck", holding(7)),
        running("sb-orphan", holding(8)),
        running("sb-orphan-2", holding(9)),
        running("sb-stranger", { [MARKER_PATH]: "not a marker" }),
      ],
      [proven, swapped, lostItsSandbox, bare, paused, broken, stuck, switchedProvider, lostOrphan],
      { rateLimitPerMinute: 0, budget: 6000, requestTimeoutMs: 400 },
    );
  });
  afterAll(() => w?.stop());
  beforeEach(() => {
    w.sim.setFaults([]);
    w.sim.reset();
  });

  const proveLease = async (id: string) =>
    (await w.service.prove({ leases: [{ leaseId: id }], untracked: [] }))[0]!;
  const proveOrphan = async (id: string) =>
    (await w.service.prove({ leases: [], untracked: [{ sandboxId: id }] }))[0]!;

  it("proves a sandbox that holds its row's marker", async () => {
    const proof = await proveLease(proven.id);
    expect(proof).toMatchObject({ answer: "proven", sandboxId: "sb-proven", sandboxStatus: "running" });
    expect(Date.parse(proof.readAt)).not.toBeNaN();
  });

  it("names the row whose marker a sandbox holds instead", async () => {
    const proof = await proveLease(swapped.id);
    expect(proof.answer).toBe("another-lease");
    expect(proof.owners.map((owner) => owner.leaseId)).toEqual([lostItsSandbox.id]);
  });

  it("reports no marker for a sandbox without the file, and for a file that holds no marker", async () => {
    expect(await proveLease(bare.id)).toMatchObject({ answer: "no-marker", reason: "file-absent" });
    expect(await proveOrphan("sb-stranger")).toMatchObject({
      answer: "no-marker",
      reason: "not-a-workspace",
    });
  });

  it("never reads, resumes or proves a paused sandbox", async () => {
    const proof = await proveLease(paused.id);
    expect(proof).toMatchObject({ answer: "cannot-read", reason: "not-running", sandboxStatus: "paused" });
    const stats = w.sim.stats();
    expect(stats.byRoute["POST /v1/sandboxes/:id/exec"]).toBeUndefined();
    expect(stats.byRoute["POST /v1/sandboxes/:id/resume"]).toBeUndefined();
    expect(w.sim.sandboxes()[0]!.sandboxes.find((sandbox) => sandbox.id === "sb-paused")?.status).toBe(
      "paused",
    );
  });

  it("never proves a sandbox whose exec fails, and says it could not read", async () => {
    w.sim.setFaults([{ method: "POST", path: "^/v1/sandboxes/sb-broken/exec$", status: 500 }]);
    const proof = await proveLease(broken.id);
    expect(proof.answer).toBe("cannot-read");
    expect(proof.message).toContain("no evidence");
  });

  it("gives up on a stuck read after the read timeout: cannot read, not no marker", async () => {
    w.sim.setFaults([{ method: "POST", path: "^/v1/sandboxes/sb-stuck/exec$", hang: true }]);
    expect(await proveLease(stuck.id)).toMatchObject({ answer: "cannot-read", reason: "timeout" });
  });

  it("matches an orphan to the row that records its marker but lost its sandbox id", async () => {
    const proof = await proveOrphan("sb-orphan");
    expect(proof.answer).toBe("another-lease");
    expect(proof.owners).toEqual([
      { sourceId: "ledger", leaseId: lostOrphan.id, status: "released", relation: "no-sandbox-id" },
    ]);
    expect(proof.message).toBe(
      `This sandbox belongs to lease ${lostOrphan.id}, whose row lost its sandbox id.`,
    );
  });

  it("matches an orphan to a row under another provider that records its marker", async () => {
    const proof = await proveOrphan("sb-orphan-2");
    expect(proof.owners).toEqual([
      {
        sourceId: "ledger",
        leaseId: switchedProvider.id,
        status: "released",
        relation: "names-another-sandbox",
      },
    ]);
  });

  it("keeps the latest proof per row and per sandbox for a later inventory read", async () => {
    await w.service.prove({ leases: [{ leaseId: proven.id }], untracked: [{ sandboxId: "sb-orphan" }] });
    expect(w.service.proofFor({ kind: "lease", sourceId: "ledger", leaseId: proven.id })?.answer).toBe(
      "proven",
    );
    const origin = w.sim.url;
    expect(
      w.service.proofFor({ kind: "untracked", origin, credential: "account", sandboxId: "sb-orphan" })
        ?.answer,
    ).toBe("another-lease");
    expect(
      w.service.proofFor({ kind: "lease", sourceId: "ledger", leaseId: switchedProvider.id }),
    ).toBeNull();
  });

  it("never carries a full marker in a proof", async () => {
    const proofs: MarkerProof[] = await w.service.prove({
      leases: [proven, swapped, bare].map((lease) => ({ leaseId: lease.id })),
      untracked: [{ sandboxId: "sb-orphan" }],
    });
    const shown = JSON.stringify(proofs);
    for (const n of [1, 2, 3, 4, 8]) expect(shown).not.toContain(marker(n));
    expect(proofs[0]!.markerPrefix).toBe(marker(1).slice(0, 8));
  });

  it("refuses a lease or sandbox that is not in the inventory, by name", async () => {
    await expect(w.service.prove({ leases: [{ leaseId: "no-such-lease" }], untracked: [] })).rejects.toThrow(
      "No lease no-such-lease",
    );
    await expect(w.service.prove({ leases: [], untracked: [{ sandboxId: "sb-proven" }] })).rejects.toThrow(
      "No untracked sandbox sb-proven",
    );
  });

  // A caller tells a lease the rows do not hold (which may be a row of a part not read) from any other
  // lookup the service cannot make by the code, never by the sentence.
  it("gives a lease not found its own code, and a sandbox not found another", async () => {
    await expect(
      w.service.prove({ leases: [{ leaseId: "no-such-lease" }], untracked: [] }),
    ).rejects.toMatchObject({ area: "inventory", code: "lease-not-found" });
    await expect(
      w.service.prove({ leases: [], untracked: [{ sandboxId: "sb-nowhere" }] }),
    ).rejects.toMatchObject({
      area: "call",
      code: "not-found",
    });
  });
});

describe("proving within the origin's request budget", () => {
  const count = 12;
  const leases = Array.from({ length: count }, (_, index) => markedRow(`sb-budget-${index}`, 100 + index));
  let w: MarkerWorld;
  beforeAll(async () => {
    // The simulator refuses any burst beyond 2 at 600 a minute: a prover that skipped the origin's queue
    // would meet 429s at once.
    w = await markerWorld(
      leases.map((_, index) => running(`sb-budget-${index}`, holding(100 + index))),
      leases,
      { rateLimitPerMinute: 600, rateLimitBurst: 2, budget: 600 },
    );
  });
  afterAll(() => w?.stop());

  it("reads a batch of markers with two paced requests each and no 429", async () => {
    w.sim.reset();
    const proofs = await w.service.prove({
      leases: leases.map((lease) => ({ leaseId: lease.id })),
      untracked: [],
    });
    expect(proofs.map((proof) => proof.answer)).toEqual(Array(count).fill("proven"));
    const stats = w.sim.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.total).toBe(2 * count);
    expect(stats.byRoute["POST /v1/sandboxes/:id/exec"]).toEqual({ "200": count });
  });
});
