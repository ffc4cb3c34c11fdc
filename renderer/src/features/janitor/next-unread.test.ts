import { describe, expect, it } from "vitest";
import { nextUnreadWords } from "./next-unread";

describe("what the next pass could not see, in words", () => {
  it("names the environment whose leases were not read, and the account not listed", () => {
    const words = nextUnreadWords({
      gaps: [
        {
          source: "paperclip",
          origin: null,
          message: "Paperclip answered 500 listing this environment's leases",
          environment: { id: "env-1", name: "acme-staging-evals" },
        },
        { source: "ledger", origin: null, message: "entry 4 could not be read", environment: null },
      ],
      gapCount: 2,
      accounts: [{ credential: "bravo", origin: "https://api.createos.test:4511", reason: "unauthorized" }],
    });
    expect(words).toEqual({
      heading: "Planned over a partial read: it selects only among the rows read, and 3 parts were not read.",
      lines: [
        "Leases of acme-staging-evals not read: Paperclip answered 500 listing this environment's leases",
        "ledger: entry 4 could not be read",
        "Account bravo at api.createos.test:4511 could not be listed: unauthorized",
      ],
    });
  });

  it("says nothing over a whole read, and that it is not known when another scan came in between", () => {
    expect(nextUnreadWords({ gaps: [], gapCount: 0, accounts: [] })).toBeNull();
    expect(nextUnreadWords(null)).toEqual({
      heading: "Whether the sources were read whole is not known: another scan finished meanwhile.",
      lines: [],
    });
  });

  it("names the first ten and counts the rest", () => {
    const gaps = Array.from({ length: 12 }, (_, i) => ({
      source: "ledger",
      origin: null,
      message: `entry ${i} could not be read`,
      environment: null,
    }));
    const words = nextUnreadWords({ gaps, gapCount: 12, accounts: [] });
    expect(words?.lines).toHaveLength(11);
    expect(words?.lines[10]).toBe("…and 2 more");
  });

  it("counts the gaps the scan had in all, beyond those listed", () => {
    const gaps = Array.from({ length: 200 }, (_, i) => ({
      source: "ledger",
      origin: null,
      message: `entry ${i} could not be read`,
      environment: null,
    }));
    const words = nextUnreadWords({ gaps, gapCount: 250, accounts: [] });
    expect(words?.heading).toContain("and 250 parts were not read.");
    expect(words?.lines.at(-1)).toBe("…and 240 more");
  });
});
