import { describe, expect, it } from "vitest";
import { grammarProblems } from "../../../shared/domain/sentence-checks";
import { itemStateHover } from "./actions/job-summary";
import { MARKER_CHECK_WORDS, MARKER_EXPECTED_WORDS } from "./lease-detail/mismatches";
import { reasonCodes } from "./leases/row-model";
import { SHARED_ENVIRONMENTS_NAME } from "./sidebar/build-tree";

/**
 * The console's own words beside the shared message templates (shared/domain/message-grammar.test.ts):
 * the sidebar's group of shared environments, the marker row of the ownership table, a job item's state,
 * and the reason chips beside a headline badge.
 */
describe("the console's words read as words", () => {
  it("names the environments no company owns in a phrase, not as a placeholder", () => {
    expect(SHARED_ENVIRONMENTS_NAME).not.toMatch(/\(no company\)/);
    expect(grammarProblems(SHARED_ENVIRONMENTS_NAME)).toEqual([]);
  });

  it("says what the marker row checks in plain words", () => {
    for (const text of [...Object.values(MARKER_CHECK_WORDS), MARKER_EXPECTED_WORDS]) {
      expect(grammarProblems(text), text).toEqual([]);
      expect(text).not.toMatch(/UUID|form only|well-formed/);
    }
  });

  it("keeps CreateOS's HTTP status out of a job item's state, on hover only", () => {
    expect(itemStateHover({ message: null, reason: null, httpStatus: 200 })).toBe(
      "CreateOS answered HTTP 200",
    );
    expect(itemStateHover({ message: "Destroyed.", httpStatus: 204 })).toBe(
      "Destroyed. · CreateOS answered HTTP 204",
    );
    expect(itemStateHover({ message: null, reason: null, httpStatus: null })).toBeUndefined();
  });

  it("never shows a reason chip that repeats the headline badge", () => {
    const chips = reasonCodes({
      headline: "leaking",
      ownership: ["owned"],
      flags: ["leaking"],
      provider: "running",
      unknownReason: null,
    } as unknown as Parameters<typeof reasonCodes>[0]);
    expect(grammarProblems(["leaking", ...chips].join(" "))).toEqual([]);
  });
});
