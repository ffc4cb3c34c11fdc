import { describe, expect, it } from "vitest";
import type { MarkerProof, ProofSubject } from "../../../shared/domain/marker-proof.js";
import { proofKey } from "../../../shared/domain/marker-proof.js";
import { sandboxProofEvidence } from "./proof-evidence.js";

const MARKER = "0f8fad5b-d9cb-469f-a165-70867728950e";

function proof(subject: ProofSubject, sandboxId: string): MarkerProof {
  return {
    subject,
    sandboxId,
    origin: "https://api.example.test",
    sandboxStatus: "running",
    answer: "proven",
    reason: null,
    owners: [{ sourceId: "ledger", leaseId: "lease-1", status: "released", relation: "names-this-sandbox" }],
    markerPrefix: MARKER.slice(0, 8),
    message: "The sandbox holds this lease's marker.",
    readAt: "2026-12-01T09:00:00.000Z",
  };
}

const rowSubject: ProofSubject = { kind: "lease", sourceId: "ledger", leaseId: "lease-1" };
const orphanSubject: ProofSubject = {
  kind: "untracked",
  origin: "https://api.example.test",
  credential: "main",
  sandboxId: "sb-orphan",
};
const proofs = new Map([
  [proofKey(rowSubject), proof(rowSubject, "sb-1")],
  [proofKey(orphanSubject), proof(orphanSubject, "sb-orphan")],
]);
const store = { proofFor: (subject: ProofSubject) => proofs.get(proofKey(subject)) ?? null };
const item = { sourceId: "ledger", origin: "https://api.example.test", credential: "main" };

describe("the marker proof an action's audit entry keeps", () => {
  it.each([
    ["a row's sandbox it was read from", { ...item, leaseId: "lease-1", sandboxId: "sb-1" }, "proven"],
    ["an untracked sandbox", { ...item, leaseId: null, sourceId: null, sandboxId: "sb-orphan" }, "proven"],
    ["a row that names another sandbox since", { ...item, leaseId: "lease-1", sandboxId: "sb-2" }, null],
    ["a row never proven", { ...item, leaseId: "lease-9", sandboxId: "sb-9" }, null],
    ["no sandbox at all", { ...item, leaseId: "lease-1", sandboxId: null }, null],
  ])("for %s", (_, sandbox, expected) => {
    expect(sandboxProofEvidence(store, sandbox)?.answer ?? null).toBe(expected);
  });

  it("keeps the marker's prefix and the owners' ids, never the marker", () => {
    const evidence = sandboxProofEvidence(store, { ...item, leaseId: "lease-1", sandboxId: "sb-1" });
    expect(evidence).toMatchObject({ markerPrefix: "0f8fad5b", owners: [{ leaseId: "lease-1" }] });
    expect(JSON.stringify(evidence)).not.toContain(MARKER);
  });
});
