import { describe, expect, it } from "vitest";
import type { PlanItem } from "./actions.js";
import { REFUSAL_MESSAGES } from "./allowed-actions.js";
import { planTally } from "./bulk-confirmation.js";
import { LIVE_PROVIDER_STATES, PLUGIN_MESSAGES, PROVIDER_CODES } from "./codes.js";
import { confirmationPhraseFor } from "./kept-items.js";
import { leaseStory, storyText } from "./lease-story.js";
import { judgeMarker } from "./marker-proof.js";
import { RUN_FAILURE_MESSAGES } from "./paperclip-will.js";
import { sandboxStatusWords } from "./sandbox-status-words.js";
import { grammarProblems } from "./sentence-checks.js";
import { environment, meta, NOW, observation, row } from "./test-fixtures.js";
import { classifyLease } from "./verdict.js";

/**
 * Every message template an operator reads, rendered with sample values, reads as a sentence: no doubled
 * words, no raw code names, no HTTP statuses, no "the sandbox is error". The explanations of the verdict
 * are checked over the whole verdict space in lease-story.test.ts.
 */

function item(headline: PlanItem["verdict"]["headline"], overrides: Partial<PlanItem> = {}): PlanItem {
  return {
    itemId: `item-${Math.random()}`,
    leaseId: "lease-1",
    sandboxId: "sbx-1",
    decision: "do",
    verdict: { headline, ownership: ["owned"], provider: "running", flags: [] },
    confirmation: "click",
    requiresOverride: false,
    ...overrides,
  } as PlanItem;
}

describe("message templates read as sentences", () => {
  it.each(Object.entries({ ...REFUSAL_MESSAGES, ...PLUGIN_MESSAGES, ...RUN_FAILURE_MESSAGES }))(
    "the fixed message %s",
    (_name, message) => {
      expect(grammarProblems(message)).toEqual([]);
    },
  );

  it.each([...PROVIDER_CODES, "hibernating"])("a sandbox %s, in a sentence", (status) => {
    const sentence = `CreateOS shows the sandbox ${sandboxStatusWords(status)}.`;
    expect(grammarProblems(sentence)).toEqual([]);
    if ((LIVE_PROVIDER_STATES as readonly string[]).includes(status) && status !== "running") {
      expect(sentence).not.toBe("CreateOS shows the sandbox error.");
    }
  });

  it.each([...PROVIDER_CODES, "hibernating"])("a marker not read because the sandbox is %s", (status) => {
    const judged = judgeMarker(
      { kind: "not-read", reason: "not-running", sandboxStatus: status },
      { sandboxId: "sbx-1", lease: null },
      new Map(),
    );
    expect(grammarProblems(judged.message), judged.message).toEqual([]);
    expect(judged.message).toContain(`the sandbox is ${sandboxStatusWords(status)}`);
  });

  it("the grammar check catches each wording the console used to show", () => {
    for (const text of [
      "The marker was not read: the sandbox is error, and none is resumed just to be read.",
      "confirmed · 200",
      "the lease's metadata is nothing",
      "leaking leaking",
      "Codes: foreign-environment, paused",
    ]) {
      expect(grammarProblems(text), text).not.toEqual([]);
    }
  });

  it.each(["running", "paused", "error", "gone", "not-visible"] as const)(
    "the CLI's sentences for a sandbox %s, from the drawer's story",
    (status) => {
      for (const metadata of [meta(), meta({ companyId: "another-company" }), null]) {
        const lease = row({ metadata });
        const env = environment();
        const provider = observation(status);
        const story = leaseStory({
          sourceId: "ledger:test",
          lease,
          environment: env,
          provider,
          verdict: classifyLease(lease, env, provider, { now: NOW, otherRowsOnSandbox: [] }),
          sharedWith: [],
        });
        for (const text of [storyText(story.whatIsWrong), story.whatToDo ?? "", story.paperclipWill]) {
          expect(grammarProblems(text), text).toEqual([]);
        }
      }
    },
  );

  it.each([
    [0, 0, 0],
    [1, 0, 0],
    [0, 1, 0],
    [34, 23, 0],
    [1, 0, 1],
    [0, 57, 33],
  ])("a plan of %i ok and %i flagged, %i waiting for the override", (ok, flagged, waiting) => {
    const items = [
      ...Array.from({ length: ok }, () => item("ok")),
      ...Array.from({ length: flagged }, () => item("leaking", { confirmation: "typed-id" })),
      ...Array.from({ length: waiting }, () => item("ok", { requiresOverride: true })),
    ];
    for (const action of ["destroy", "release"] as const) {
      const tally = planTally(
        { action, items, countConfirmation: { reasons: ["ok-sandboxes"], threshold: 20 } },
        false,
      );
      for (const text of [
        tally.summary,
        tally.button,
        tally.warning ?? "",
        confirmationPhraseFor(items) ?? "",
      ]) {
        expect(grammarProblems(text), text).toEqual([]);
      }
      expect(tally.button).toMatch(new RegExp(`^(Destroy|Release) ${ok + flagged} (sandbox|lease)`));
      expect(tally.summary).toContain(`${ok + flagged} will be`);
    }
  });
});
