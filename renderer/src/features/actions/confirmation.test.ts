import { describe, expect, it } from "vitest";
import type { Plan, PlanItem } from "../../../../shared/domain/actions";
import {
  confirmationMatches,
  confirmationNeed,
  countMatches,
  countToType,
  executeRequest,
} from "./confirmation";

function item(overrides: Partial<PlanItem>): PlanItem {
  return {
    itemId: "i",
    leaseId: "L",
    sourceId: "s",
    environmentId: "e",
    environmentName: "Prod",
    companyId: "c",
    sandboxId: "sb-1",
    origin: "https://api.createos.example",
    credential: "primary",
    decision: "do",
    effect: "delete",
    confirmation: "click",
    requiresOverride: false,
    skipReason: null,
    skipMessage: null,
    verdict: { headline: "ok", ownership: ["owned"], provider: "running", flags: [] },
    fingerprint: "f",
    ...overrides,
  };
}

function plan(
  items: PlanItem[],
  phrase: string | null = null,
): Pick<Plan, "items" | "counts" | "confirmationPhrase"> {
  const done = items.filter((entry) => entry.decision === "do");
  return {
    items,
    confirmationPhrase: phrase,
    counts: {
      do: done.length,
      skip: items.length - done.length,
      pause: done.filter((entry) => entry.effect === "pause").length,
      delete: done.filter((entry) => entry.effect === "delete").length,
      typedId: done.filter((entry) => entry.confirmation === "typed-id").length,
      needsOverride: 0,
      skippedByReason: {},
    },
  };
}

describe("confirmationNeed", () => {
  it.each([
    ["nothing to do", plan([item({ decision: "skip" })]), { kind: "nothing-to-do" }],
    ["owned items only need a click", plan([item({}), item({ itemId: "j" })]), { kind: "click" }],
    [
      "one forced destroy needs its sandbox id typed",
      plan([item({ confirmation: "typed-id", sandboxId: "sb-FORCED" })]),
      { kind: "sandbox-id", expected: "sb-FORCED" },
    ],
    [
      "one forced destroy in a selection still asks for its id",
      plan([item({}), item({ itemId: "j", confirmation: "typed-id", sandboxId: "sb-X" })], "Prod 2"),
      { kind: "sandbox-id", expected: "sb-X" },
    ],
    [
      "several forced destroys need the plan's phrase",
      plan(
        [
          item({ confirmation: "typed-id" }),
          item({ itemId: "j", confirmation: "typed-id", sandboxId: "sb-2" }),
        ],
        "destroy 2 in Prod",
      ),
      { kind: "phrase", expected: "destroy 2 in Prod" },
    ],
    [
      "skipped forced items ask for nothing",
      plan([item({}), item({ itemId: "j", decision: "skip", confirmation: "typed-id" })]),
      { kind: "click" },
    ],
  ])("%s", (_, input, expected) => {
    expect(confirmationNeed(input)).toEqual(expected);
  });

  it("several forced destroys without a phrase cannot be confirmed", () => {
    const need = confirmationNeed(
      plan([
        item({ confirmation: "typed-id" }),
        item({ itemId: "j", confirmation: "typed-id", sandboxId: "sb-2" }),
      ]),
    );
    expect(need.kind).toBe("impossible");
  });
});

describe("confirmationMatches", () => {
  const need = { kind: "sandbox-id", expected: "sb-01ABC" } as const;
  it.each([
    ["the exact id", "sb-01ABC", true],
    ["with surrounding spaces", "  sb-01ABC ", true],
    ["a wrong id", "sb-01ABD", false],
    ["a prefix", "sb-01AB", false],
    ["a different case", "SB-01ABC", false],
    ["nothing", "", false],
  ])("%s", (_, typed, expected) => {
    expect(confirmationMatches(need, typed)).toBe(expected);
  });

  it("a click plan matches without typing; nothing-to-do never does", () => {
    expect(confirmationMatches({ kind: "click" }, "")).toBe(true);
    expect(confirmationMatches({ kind: "nothing-to-do" }, "")).toBe(false);
  });
});

describe("executeRequest", () => {
  it("sends the typed sandbox id for one forced destroy", () => {
    expect(
      executeRequest({ planId: "p" }, { kind: "sandbox-id", expected: "sb-1" }, " sb-1 ", false),
    ).toEqual({
      planId: "p",
      confirmSandboxIds: ["sb-1"],
      override: false,
    });
  });
  it("sends the phrase for a selection, and the override when given", () => {
    expect(executeRequest({ planId: "p" }, { kind: "phrase", expected: "x" }, "x", true)).toEqual({
      planId: "p",
      confirmSandboxIds: [],
      confirmationPhrase: "x",
      override: true,
    });
  });
});

describe("countToType", () => {
  const risky = (items: PlanItem[]) => ({
    action: "destroy" as const,
    items,
    countConfirmation: { reasons: ["ok-sandboxes" as const], threshold: 20 },
  });

  it("asks for the number that will be acted on, which follows the override", () => {
    const items = [item({}), item({ itemId: "j" }), item({ itemId: "k", requiresOverride: true })];
    expect(countToType(risky(items), false)).toBe("destroy 2");
    expect(countToType(risky(items), true)).toBe("destroy 3");
  });

  it("asks for nothing when the plan needs no count, or nothing would be acted on", () => {
    expect(countToType({ ...risky([item({})]), countConfirmation: null }, false)).toBeNull();
    expect(countToType(risky([item({ requiresOverride: true })]), false)).toBeNull();
  });

  it.each([
    ["destroy 2", "destroy 2", true],
    ["destroy 2", " Destroy   2 ", true],
    ["destroy 2", "destroy 3", false],
    ["destroy 2", "2", false],
    ["destroy 2", "", false],
  ])("expected %j, typed %j: %s", (expected, typed, ok) => {
    expect(countMatches(expected, typed)).toBe(ok);
  });

  it("sends the typed count with the request", () => {
    expect(executeRequest({ planId: "p" }, { kind: "click" }, "", false, " destroy 2 ")).toMatchObject({
      typedCount: "destroy 2",
    });
  });
});
