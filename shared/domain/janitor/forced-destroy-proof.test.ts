import { describe, expect, it } from "vitest";
import type { MarkerProof } from "../marker-proof.js";
import { planPass } from "./plan-pass.js";
import {
  alone,
  FOREIGN_MARKER,
  LOST_MARKER,
  leaseProof,
  NOW,
  policyOf,
  READS,
  ROWS,
  untrackedProof,
  world,
} from "./test-world.js";

const inventory = world();

/** What a destroy rule selecting every candidate of the world does with one of them, given the proofs kept. */
function destroyOne(name: string, proofs: MarkerProof[], action: "destroy" | "quarantine" = "destroy") {
  const policy = policyOf([
    {
      name: "clean",
      select: { kind: name.startsWith("sbx_") ? "untracked" : "lease" },
      action,
      ...(action === "quarantine" ? { quarantineHours: 24 } : {}),
    },
  ]);
  const [rule] = planPass({ policy, inventory, proofs, now: NOW, history: [] }).rules;
  const item = [...(rule?.selected ?? []), ...(rule?.skipped ?? [])].find(
    ({ target }) => (target.kind === "lease" ? target.leaseId : target.sandboxId) === name,
  );
  if (item === undefined) throw new Error(`the rule did not match ${name}`);
  return item;
}

const lostOrphan = untrackedProof("sbx_lost", READS.holding(LOST_MARKER));

describe("a forced destroy needs a marker proof that the sandbox is nobody's", () => {
  it.each<[string, string, MarkerProof[], RegExp]>([
    ["an orphan with no proof kept", "sbx_fresh", [], /No marker proof is kept/],
    [
      "an orphan whose marker no one can read",
      "sbx_fresh",
      [untrackedProof("sbx_fresh", READS.notRunning)],
      /no evidence either way/,
    ],
    [
      "an orphan with no marker at all (could be anyone's hand-made sandbox)",
      "sbx_stray",
      [untrackedProof("sbx_stray", READS.absent)],
      /no known lease's, not nobody's/,
    ],
    [
      "an orphan holding the marker of a lease a run holds now",
      "sbx_borrowed",
      [untrackedProof("sbx_borrowed", READS.holding("33333333-4444-4555-8666-777777777777"))],
      /names lease in-use, which is active/,
    ],
    ["a foreign row with no proof kept", "foreign", [], /No marker proof is kept/],
    [
      "a foreign row whose sandbox holds another's live marker",
      "foreign",
      [leaseProof(ROWS.foreign, READS.holding("33333333-4444-4555-8666-777777777777"))],
      /which is active/,
    ],
    [
      "a proof read from the sandbox another row named",
      "foreign",
      [{ ...leaseProof(ROWS.foreign, READS.own(FOREIGN_MARKER)), sandboxId: "sbx_elsewhere" }],
      /read from another sandbox/,
    ],
    ["a row whose metadata is missing, with no proof", "metadata-missing", [], /No marker proof is kept/],
  ])("%s: skipped, needs a marker proof", (_, name, proofs, message) => {
    for (const action of ["destroy", "quarantine"] as const) {
      const item = destroyOne(name, proofs, action);
      expect(item.forced).toBe(true);
      expect(item.skip?.reason).toBe("needs-marker-proof");
      expect(item.skip?.message).toMatch(message);
      expect(item.proof?.proves).toBe(false);
    }
  });

  it.each<[string, string, MarkerProof[], RegExp]>([
    ["an orphan holding only a failed lease's marker", "sbx_lost", [lostOrphan], /only ended leases \(lost;/],
    [
      "a foreign released row whose sandbox holds its own marker",
      "foreign",
      [leaseProof(ROWS.foreign, READS.own(FOREIGN_MARKER))],
      /this ended lease's own marker/,
    ],
    [
      "a row with no metadata whose sandbox holds a failed lease's marker",
      "metadata-missing",
      [leaseProof(ROWS.metadataMissing, READS.holding(LOST_MARKER))],
      /only ended leases/,
    ],
  ])("%s: selected, with the proof it was judged on", (_, name, proofs, message) => {
    const item = destroyOne(name, proofs);
    expect(item.skip).toBeNull();
    expect(item.forced).toBe(true);
    expect(item.proof).toMatchObject({ proves: true });
    expect(item.proof?.message).toMatch(message);
  });

  it("the newest proof of a sandbox is the one that counts", () => {
    const older = untrackedProof("sbx_lost", READS.holding(LOST_MARKER), "2026-09-10T10:00:00.000Z");
    const newer = untrackedProof("sbx_lost", READS.notRunning, "2026-09-10T11:00:00.000Z");
    expect(destroyOne("sbx_lost", [newer, older]).skip?.reason).toBe("needs-marker-proof");
    expect(destroyOne("sbx_lost", [older]).skip).toBeNull();
  });

  it("an owner the scan did not read proves nothing", () => {
    const policy = policyOf([{ name: "clean", select: { kind: "untracked" }, action: "destroy" }]);
    const withoutLost = { ...alone(inventory, "sbx_lost"), leases: [] };
    const [rule] = planPass({
      policy,
      inventory: withoutLost,
      proofs: [lostOrphan],
      now: NOW,
      history: [],
    }).rules;
    expect(rule?.skipped[0]?.skip?.message).toMatch(/lease lost, which this scan did not read/);
  });

  it("a proof read while a part of the sources that may hold a recorder was unread proves nothing", () => {
    const overGap = { ...lostOrphan, gapMayRecord: true };
    expect(destroyOne("sbx_lost", [overGap]).skip?.message).toMatch(
      /When the marker proof was read, a part of the sources that may hold a row recording this marker could not be read/,
    );
    const { gapMayRecord: _unsaid, ...keptBefore } = lostOrphan;
    expect(destroyOne("sbx_lost", [keptBefore]).skip?.message).toMatch(/kept without saying whether/);
  });

  /** Why a destroy rule over `changed` skips the untracked sandbox `name` given the proofs kept; null: selected. */
  function destroyIn(changed: typeof inventory, name: string, proofs: MarkerProof[]) {
    const policy = policyOf([{ name: "clean", select: { kind: "untracked" }, action: "destroy" }]);
    const [rule] = planPass({ policy, inventory: changed, proofs, now: NOW, history: [] }).rules;
    const items = [...(rule?.selected ?? []), ...(rule?.skipped ?? [])];
    const item = items.find(({ target }) => target.sandboxId === name);
    if (item === undefined) throw new Error(`the rule did not match ${name}`);
    return item.skip;
  }

  it("a row read now that records the marker, and goes on, refuses the destroy its proof never named", () => {
    const lost = inventory.leases.find((row) => row.lease.id === "lost")!;
    const again = { ...lost, lease: { ...lost.lease, id: "lost-again", status: "active" } };
    const changed = { ...inventory, leases: [...inventory.leases, again] };
    expect(lostOrphan.owners.map((owner) => owner.leaseId)).toEqual(["lost"]);
    expect(destroyIn(changed, "sbx_lost", [lostOrphan])?.message).toMatch(
      /A row read now records this marker: lease lost-again, which is active/,
    );
    expect(destroyIn(inventory, "sbx_lost", [lostOrphan])).toBeNull();
  });

  it("a part of the sources the scan acted over could not read, where a recorder may be, refuses it", () => {
    const gap = { source: "ledger", origin: null, message: "leases[9] could not be read" };
    const changed = { ...inventory, gaps: [gap] };
    expect(destroyIn(changed, "sbx_lost", [lostOrphan])?.message).toMatch(
      /A part of the sources this scan could not read may hold a row recording this marker \(ledger: leases\[9\] could not be read\)/,
    );
    const elsewhere = { ...gap, origin: "https://api.elsewhere.example" };
    expect(destroyIn({ ...inventory, gaps: [elsewhere] }, "sbx_lost", [lostOrphan])).toBeNull();
  });

  it("a row this environment owns needs no proof to destroy, and a release is never forced", () => {
    const destroy = destroyOne("leaky", []);
    expect(destroy).toMatchObject({ forced: false, proof: null, skip: null });
    const policy = policyOf([{ name: "let go", select: { kind: "lease" }, action: "release" }]);
    const [rule] = planPass({
      policy,
      inventory: alone(inventory, "leaky"),
      proofs: [],
      now: NOW,
      history: [],
    }).rules;
    expect(rule?.selected[0]).toMatchObject({ forced: false, proof: null });
  });

  it("a foreign row is never released, proof or not: the plugin refuses it", () => {
    const policy = policyOf([{ name: "let go", select: { kind: "lease" }, action: "release" }]);
    const proofs = [leaseProof(ROWS.foreign, READS.own(FOREIGN_MARKER))];
    const [rule] = planPass({
      policy,
      inventory: alone(inventory, "foreign"),
      proofs,
      now: NOW,
      history: [],
    }).rules;
    expect(rule?.skipped[0]?.skip).toMatchObject({ reason: "action-refused", refusal: "foreign-company" });
  });
});
