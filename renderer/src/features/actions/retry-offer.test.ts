import { describe, expect, it } from "vitest";
import type { JobItemState } from "../../../../shared/domain/actions";
import type { JobAccount } from "./job-account";
import { emptyCounts } from "./job-summary";
import { retryOffer } from "./retry-offer";

const answered = (counts: Partial<Record<JobItemState, number>>) => ({
  counts: { ...emptyCounts(), ...counts },
});
const failure = new Error("The journal could not be read.");

describe("retryOffer", () => {
  it("counts the failed and unconfirmed items of main's account once it is read", () => {
    expect(retryOffer({ kind: "read" }, answered({ confirmed: 30, failed: 2, unconfirmed: 1 }))).toBe(3);
    expect(retryOffer({ kind: "read" }, answered({ confirmed: 30, skipped: 4 }))).toBe(0);
  });

  it.each<JobAccount>([
    { kind: "running" },
    { kind: "reading" },
    { kind: "unasked" },
    { kind: "unread", error: failure },
  ])("offers nothing, not 0, while main's account is $kind", (account) => {
    expect(retryOffer(account, answered({ failed: 2 }))).toBeNull();
  });

  it("offers nothing while main has not answered, whatever the events merged", () => {
    expect(retryOffer({ kind: "read" }, null)).toBeNull();
  });
});
