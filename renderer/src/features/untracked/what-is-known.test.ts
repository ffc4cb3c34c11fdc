import { describe, expect, it } from "vitest";
import type { InventoryView } from "../../../../shared/contract";
import { listingHealth, untrackedKnown } from "./what-is-known";

const view = {
  originHealth: [
    { credential: "ops", origin: "https://a", ok: true, reason: null, httpStatus: null, sandboxCount: 3 },
    {
      credential: "old",
      origin: "https://a",
      ok: false,
      reason: "unreachable",
      httpStatus: null,
      sandboxCount: 0,
    },
  ],
} as unknown as InventoryView;

describe("what an account's untracked view may say when it shows none", () => {
  it("says none only for an account the inventory shown listed, with nothing uncertain", () => {
    expect(untrackedKnown(listingHealth(view, "ops", "https://a"), false, 0)).toBe("none");
  });

  it("says the sandboxes cannot be told while some are uncertain", () => {
    expect(untrackedKnown(listingHealth(view, "ops", "https://a"), false, 2)).toBe("uncertain");
  });

  it("says the listing failed from the inventory shown, without main's status", () => {
    expect(untrackedKnown(listingHealth(view, "old", "https://a"), false, 0)).toBe("failed");
    expect(untrackedKnown(listingHealth(view, "ops", "https://a"), true, 0)).toBe("failed");
  });

  it("says it is not known for an account the inventory shown holds no listing of, or before it is read", () => {
    expect(untrackedKnown(listingHealth(view, "ops", "https://b"), false, 0)).toBe("unread");
    expect(untrackedKnown(listingHealth(undefined, "ops", "https://a"), false, 0)).toBe("unread");
  });
});
