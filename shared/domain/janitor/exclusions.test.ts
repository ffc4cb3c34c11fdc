import { describe, expect, it } from "vitest";
import { candidatesOf, type JanitorCandidate } from "./candidate.js";
import { type ExclusionReason, excluded } from "./exclusions.js";
import { planPass } from "./plan-pass.js";
import { NOW, alone as onlyThese, policyOf, proofs, world } from "./test-world.js";

const inventory = world();

const alone = (name: string) => onlyThese(inventory, name);

function candidate(name: string): JanitorCandidate {
  const [found] = candidatesOf(alone(name));
  if (found === undefined) throw new Error(`the test world has no ${name}`);
  return found;
}

const CASES: Array<[string, string, ExclusionReason]> = [
  ["a login session holds the sandbox", "login", "login-session"],
  ["the run holding the lease fails on every call", "run-failing", "run-failing"],
  ["a run is using the sandbox", "in-use", "in-use"],
  ["Paperclip's cleanup sweep holds a claim", "host-cleanup", "host-cleanup"],
  ["another row names the same sandbox", "shared-old", "shared"],
  ["the sandbox's state could not be read", "unknown", "provider-unknown"],
  ["no configured account lists the sandbox", "hidden", "not-visible"],
  ["CreateOS lists the sandbox destroyed", "gone", "gone"],
  ["a source at the origin was read incompletely", "sbx_maybe", "uncertain-untracked"],
];

describe("the exclusions no rule can lift", () => {
  it.each(CASES)("%s: excluded as %s", (_, name, reason) => {
    expect(excluded(candidate(name))?.reason).toBe(reason);
  });

  it.each(CASES)("%s: a rule that would select it selects nothing, and says why", (_, name, reason) => {
    const only = alone(name);
    const kind = only.leases.length > 0 ? "lease" : "untracked";
    const actions = kind === "lease" ? ["destroy", "quarantine", "release"] : ["destroy", "quarantine"];
    for (const action of actions) {
      const policy = policyOf([
        {
          name: "everything",
          select: { kind },
          action,
          ...(action === "quarantine" ? { quarantineHours: 24 } : {}),
        },
      ]);
      const [rule] = planPass({ policy, inventory: only, proofs: proofs(), now: NOW, history: [] }).rules;
      expect(rule?.selected, `${action} selected ${name}`).toEqual([]);
      expect(rule?.skipped.map((item) => item.skip?.reason)).toEqual([reason]);
      expect(rule?.skipped[0]?.skip?.message).toMatch(/\w/);
    }
  });

  it("history is no candidate at all: a rule that would select it lists nothing", () => {
    // A lease that is over with nothing left at CreateOS: passed over as a row no rule matches.
    const only = alone("closed");
    expect(only.leases.map((row) => row.verdict.headline)).toEqual(["closed"]);
    expect(candidatesOf(only)).toEqual([]);
    const policy = policyOf([{ name: "everything", select: { kind: "lease" }, action: "destroy" }]);
    const [rule] = planPass({ policy, inventory: only, proofs: proofs(), now: NOW, history: [] }).rules;
    expect(rule).toMatchObject({ selected: [], skipped: [] });
  });

  it("a row without any of them is not excluded, and the same rule selects it", () => {
    expect(excluded(candidate("leaky"))).toBeNull();
    const policy = policyOf([{ name: "everything", select: { kind: "lease" }, action: "destroy" }]);
    const [rule] = planPass({ policy, inventory: alone("leaky"), proofs: [], now: NOW, history: [] }).rules;
    expect(rule?.selected.map((item) => item.target)).toMatchObject([{ kind: "lease", leaseId: "leaky" }]);
  });

  it("an untracked sandbox whose origin was read completely is not excluded", () => {
    expect(excluded(candidate("sbx_lost"))).toBeNull();
  });

  it("the uncertain sandbox's reason names the source gap", () => {
    expect(excluded(candidate("sbx_maybe"))?.message).toContain("the lease list stopped at page 3");
  });
});
