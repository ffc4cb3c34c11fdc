import { describe, expect, it } from "vitest";
import type { PassItem, PassPlan, PastAction } from "./pass-plan.js";
import { PassPlanSchema } from "./pass-plan.js";
import { planPass } from "./plan-pass.js";
import { DEFAULT_CAPS } from "./policy.js";
import { NOW, ORIGIN, policyOf, proofs, world } from "./test-world.js";

const inventory = world();
const LEAKING = { name: "leaking", select: { headline: ["leaking"] }, action: "destroy" };
const OLD = { name: "released a day ago", select: { age: { released: "24h" } }, action: "destroy" };
const STALE = { name: "stale config", select: { flags: { allOf: ["stale-config"] } }, action: "release" };

const names = (items: readonly PassItem[] | undefined) =>
  (items ?? []).map(({ target }) => (target.kind === "lease" ? target.leaseId : target.sandboxId));
const skips = (items: readonly PassItem[] | undefined) =>
  (items ?? []).map(({ target, skip }) => [
    target.kind === "lease" ? target.leaseId : target.sandboxId,
    skip?.reason,
  ]);

function pass(
  rules: unknown[],
  options: { caps?: unknown; history?: PastAction[]; now?: Date } = {},
): PassPlan {
  const policy = policyOf(rules, options.caps === undefined ? {} : { caps: options.caps });
  return planPass({
    policy,
    inventory,
    proofs: proofs(),
    now: options.now ?? NOW,
    history: options.history ?? [],
  });
}

const past = (rule: string, minutesAgo: number): PastAction => ({
  rule,
  action: "destroy",
  at: new Date(NOW.getTime() - minutesAgo * 60_000).toISOString(),
});

describe("a pass plan", () => {
  it("selects what the rule selects, and skips the rest with the reason", () => {
    const [rule] = pass([LEAKING]).rules;
    expect(names(rule?.selected)).toEqual(["leaky", "leaky-too", "leaky-recent"]);
    expect(skips(rule?.skipped)).toEqual([
      ["shared-old", "shared"],
      ["shared-new", "shared"],
    ]);
    expect(rule?.selected[0]).toMatchObject({
      target: {
        kind: "lease",
        sourceId: "paperclip",
        leaseId: "leaky",
        sandboxId: "sbx_leaky",
        origin: ORIGIN,
      },
      clauses: ["headline leaking"],
      forced: false,
    });
  });

  it("passes over history as over a row no rule matches: a plan grows with the live fleet, not its past", () => {
    // The lease is over and nothing of it lives at CreateOS: no action applies, and an instance keeps
    // every such row it ever made, so listing each as skipped would grow every pass's report with time.
    expect(inventory.leases.find((row) => row.lease.id === "closed")?.verdict.headline).toBe("closed");
    const plan = pass([{ name: "every row", select: { kind: "lease" }, action: "destroy" }]);
    const listed = [...names(plan.rules[0]?.selected), ...names(plan.rules[0]?.skipped)];
    expect(listed).not.toContain("closed");
    expect(listed).toContain("gone");
    expect(plan.counts.bySkipReason.closed).toBeUndefined();
  });

  it("is what the plan schema describes, so it can be stored and sent as it is", () => {
    const plan = pass([LEAKING, OLD, STALE]);
    expect(PassPlanSchema.parse(plan)).toEqual(plan);
    expect(plan.counts).toEqual({
      selected: 5,
      skipped: 5,
      byAction: { quarantine: 0, destroy: 4, release: 1 },
      bySkipReason: { shared: 2, "already-selected": 2, "needs-marker-proof": 1 },
    });
  });
});

describe("caps", () => {
  it.each<[string, unknown[], unknown, string[][], string[][]]>([
    [
      "a rule's cap per pass",
      [{ ...LEAKING, maxPerPass: 2 }],
      undefined,
      [["leaky", "leaky-too"]],
      [["leaky-recent", "rule-per-pass"]],
    ],
    [
      "the policy's cap per pass, over every rule",
      [LEAKING, STALE],
      { perPass: 2 },
      [["leaky", "leaky-too"], []],
      [
        ["leaky-recent", "policy-per-pass"],
        ["stale-config", "policy-per-pass"],
      ],
    ],
  ])("%s", (_, rules, caps, selected, capped) => {
    const plan = pass(rules, { caps });
    expect(plan.rules.map((rule) => names(rule.selected))).toEqual(selected);
    const held = plan.rules.flatMap((rule) =>
      rule.skipped
        .filter((item) => item.skip?.reason === "cap-reached")
        .map((item) => [names([item])[0], item.skip?.cap]),
    );
    expect(held).toEqual(capped);
  });

  it("a rule's cap per hour counts what that rule did in the last hour of earlier passes", () => {
    const history = [past("leaking", 10), past("leaking", 50), past("leaking", 61), past("stale config", 5)];
    const [rule] = pass([{ ...LEAKING, maxPerHour: 3 }], { history }).rules;
    expect(names(rule?.selected)).toEqual(["leaky"]);
    expect(rule?.skipped.filter((item) => item.skip?.cap === "rule-per-hour").length).toBe(2);
  });

  it("the policy's cap per hour counts every rule's actions", () => {
    const history = [past("leaking", 10), past("stale config", 20), past("gone rule", 30)];
    const plan = pass([LEAKING], { caps: { perHour: 3 }, history });
    expect(plan.caps).toEqual({ perPass: DEFAULT_CAPS.perPass, perHour: 3, usedThisHour: 3 });
    expect(plan.counts.selected).toBe(0);
    expect(plan.rules[0]?.skipped.filter((item) => item.skip?.cap === "policy-per-hour").length).toBe(3);
  });

  it("a history entry whose time cannot be read, or lies ahead, counts as within the hour", () => {
    const history = [{ ...past("leaking", 0), at: "yesterday-ish" }, past("leaking", -30)];
    const [rule] = pass([{ ...LEAKING, maxPerHour: 3 }], { history }).rules;
    expect(names(rule?.selected)).toEqual(["leaky"]);
  });

  it("a cap per hour holds across passes and lapses an hour after the actions", () => {
    const rules = [{ ...LEAKING, maxPerHour: 2 }];
    const first = pass(rules);
    const acted = first.rules[0]!.selected.map(() => ({
      rule: "leaking",
      action: "destroy" as const,
      at: NOW.toISOString(),
    }));
    expect(acted.length).toBe(2);
    const later = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
    expect(pass(rules, { history: acted, now: later(30) }).counts.selected).toBe(0);
    expect(pass(rules, { history: acted, now: later(61) }).counts.selected).toBe(2);
  });

  it("with no caps in the file, the defaults hold", () => {
    expect(pass([LEAKING]).caps).toEqual({ ...DEFAULT_CAPS, usedThisHour: 0 });
  });
});

describe("one action per sandbox", () => {
  it("the first rule to select a sandbox acts on it; a later one says which rule has it", () => {
    const quarantine = { ...LEAKING, action: "quarantine", quarantineHours: 24 };
    const [first, second] = pass([quarantine, OLD]).rules;
    expect(names(first?.selected)).toEqual(["leaky", "leaky-too", "leaky-recent"]);
    expect(names(second?.selected)).toEqual(["foreign"]);
    const taken = second?.skipped.filter((item) => item.skip?.reason === "already-selected");
    expect(taken?.map((item) => [names([item])[0], item.skip?.byRule])).toEqual([
      ["leaky", "leaking"],
      ["leaky-too", "leaking"],
    ]);
  });

  it("a sandbox an earlier rule's cap held back stays that rule's", () => {
    const [, second] = pass([{ ...LEAKING, maxPerPass: 1 }, OLD]).rules;
    expect(skips(second?.skipped)).toContainEqual(["leaky-too", "already-selected"]);
    expect(names(second?.selected)).not.toContain("leaky-too");
  });

  it("a rule whose action the guard refuses leaves the sandbox to the next rule", () => {
    const release = { name: "release foreign", select: { headline: ["foreign"] }, action: "release" };
    const [first, second] = pass([release, OLD]).rules;
    expect(skips(first?.skipped)).toContainEqual(["foreign", "action-refused"]);
    expect(names(second?.selected)).toContain("foreign");
  });

  it("a sandbox in an open quarantine is left to it; an ended quarantine holds nothing", () => {
    const policy = policyOf([LEAKING]);
    const plan = (state: "waiting" | "destroyed" | "cancelled") =>
      planPass({
        policy,
        inventory,
        proofs: [],
        now: NOW,
        history: [],
        quarantines: [{ sandboxId: "sbx_leaky", origin: ORIGIN, state }],
      }).rules[0];
    expect(skips(plan("waiting")?.skipped)).toContainEqual(["leaky", "in-quarantine"]);
    expect(names(plan("destroyed")?.selected)).toContain("leaky");
    expect(names(plan("cancelled")?.selected)).toContain("leaky");
  });
});
