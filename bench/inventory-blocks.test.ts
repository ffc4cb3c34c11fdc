import { describe, expect, it } from "vitest";
import { describeBlocks } from "./inventory.js";

describe("the inventory bench's note on main's longest blocks", () => {
  // The probe keeps only blocks over its threshold; a run with none must say so rather than list nothing.
  it("says no block passed the threshold when the probe kept none", () => {
    expect(describeBlocks([])).toBe("none over 20 ms of CPU or wall");
  });

  it("names the first three blocks kept, CPU beside wall", () => {
    const blocks = [26.8, 21.4, 20.9, 20.2].map((cpuMs, index) => ({
      startMs: index * 100,
      durationMs: cpuMs + 3.04,
      cpuMs,
      waitMs: 0,
    }));
    expect(describeBlocks(blocks)).toBe(
      "26.8 ms CPU / 29.8 ms wall; 21.4 ms CPU / 24.4 ms wall; 20.9 ms CPU / 23.9 ms wall",
    );
  });
});
