import { describe, expect, it } from "vitest";
import { needsTypedId, preciseTimeLeft } from "./use-quarantines";

describe("quarantine helpers", () => {
  it("counts down to the second", () => {
    expect(preciseTimeLeft(24 * 3_600_000 - 2_000)).toBe("23 h 59 min 58 s");
    expect(preciseTimeLeft(3_600_000)).toBe("1 h 0 min 0 s");
    expect(preciseTimeLeft(242_500)).toBe("4 min 2 s");
    expect(preciseTimeLeft(900)).toBe("0 s");
    expect(preciseTimeLeft(0)).toBe("due now");
    expect(preciseTimeLeft(Number.NaN)).toBe("due now");
  });

  it("asks for the typed id where the destroy would be forced", () => {
    expect(needsTypedId(["foreign-company"])).toBe(true);
    expect(needsTypedId(["metadata-missing", "owned"])).toBe(true);
    expect(needsTypedId(["owned"])).toBe(false);
    expect(needsTypedId([])).toBe(false);
  });
});
