import { describe, expect, it } from "vitest";
import type { SourceGap } from "../paperclip.js";
import { candidatesOf, type JanitorCandidate } from "./candidate.js";
import { type ExclusionReason, excluded } from "./exclusions.js";
import { planPass } from "./plan-pass.js";
import { GAPPY_ORIGIN, NOW, ORIGIN, alone as onlyThese, policyOf, proofs, world } from "./test-world.js";

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

  describe("a part of the sources not read that may name the row's sandbox", () => {
    const destroyLeases = policyOf([{ name: "everything", select: { kind: "lease" }, action: "destroy" }]);
    const withGaps = (name: string, gaps: SourceGap[]) => ({
      ...alone(name),
      gaps: [...inventory.gaps, ...gaps],
    });
    const excludedWith = (name: string, gaps: SourceGap[]) => {
      const [found] = candidatesOf(withGaps(name, gaps));
      return found === undefined ? undefined : excluded(found);
    };
    const planWith = (gaps: SourceGap[]) =>
      planPass({
        policy: destroyLeases,
        inventory: withGaps("leaky", gaps),
        proofs: [],
        now: NOW,
        history: [],
      }).rules[0]!;

    it.each<[string, SourceGap]>([
      ["one at no known origin", { source: "ledger", origin: null, message: "leases[4] could not be read" }],
      [
        "one at the row's origin",
        { source: "ledger", origin: `${ORIGIN}/v1`, message: "leases[4] could not be read" },
      ],
      [
        "a lease list that failed, at another origin: its environment's rows may record an earlier one",
        {
          source: "paperclip",
          origin: GAPPY_ORIGIN,
          message: 'Paperclip answered 500 for the leases of environment "Production"',
          environmentId: "env-prod",
        },
      ],
    ])("%s: the row is excluded, and the plan says which part", (_, gap) => {
      expect(excludedWith("leaky", [gap])?.reason).toBe("unread-part");
      const rule = planWith([gap]);
      expect(rule.selected).toEqual([]);
      expect(rule.skipped.map((item) => item.skip?.reason)).toEqual(["unread-part"]);
      expect(rule.skipped[0]!.skip!.message).toContain(
        "A part of the sources that could not be read may name this sandbox",
      );
      expect(rule.skipped[0]!.skip!.message).toContain(`${gap.source}: ${gap.message}`);
    });

    it("one at another origin, naming no environment, leaves the row to the rules", () => {
      const gap = { source: "ledger", origin: GAPPY_ORIGIN, message: "leases[4] could not be read" };
      expect(excludedWith("leaky", [gap])).toBeNull();
      expect(planWith([gap]).selected.map((item) => item.target)).toMatchObject([{ leaseId: "leaky" }]);
    });

    it("an exclusion the row has already is the one reported", () => {
      const gap = { source: "ledger", origin: null, message: "leases[4] could not be read" };
      expect(excludedWith("in-use", [gap])?.reason).toBe("in-use");
    });
  });
});
