import { describe, expect, it } from "vitest";
import { unlistedAccountNames, unlistedAccounts, untrackedOfView } from "./untracked-evidence";

describe("untrackedOfView", () => {
  const answer = { generatedAt: "2025-06-10T00:00:00Z", sandboxes: [], uncertain: [] };

  it("takes the answer for the scan shown", () => {
    expect(untrackedOfView(answer, { generatedAt: "2025-06-10T00:00:00Z" })).toBe(answer);
  });

  it("takes no answer of another scan, nor none", () => {
    expect(untrackedOfView(answer, { generatedAt: "2025-06-10T00:05:00Z" })).toBeNull();
    expect(untrackedOfView(undefined, { generatedAt: "2025-06-10T00:00:00Z" })).toBeNull();
  });
});

describe("unlistedAccounts", () => {
  const health = (credential: string, origin: string, ok: boolean) => ({
    credential,
    origin,
    ok,
    reason: null,
    httpStatus: null,
    sandboxCount: 0,
  });

  it("counts each account not listed once", () => {
    expect(
      unlistedAccounts({
        originHealth: [
          health("a", "o", false),
          health("a", "o", false),
          health("b", "o", true),
          health("a", "p", false),
        ],
      }),
    ).toBe(2);
  });

  it("names only the accounts not listed, each once, by credential and host", () => {
    expect(
      unlistedAccountNames({
        originHealth: [
          health("demo account 2", "http://127.0.0.1:4002", false),
          health("demo account 1", "http://127.0.0.1:4001", true),
          health("demo account 2", "http://127.0.0.1:4002", false),
          health("demo account 2 (legacy URL)", "http://127.0.0.1:4003", false),
        ],
      }),
    ).toEqual(["demo account 2 (legacy URL) at 127.0.0.1:4003", "demo account 2 at 127.0.0.1:4002"]);
  });
});
