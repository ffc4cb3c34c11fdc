import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runJsonChild } from "./processes.js";

const CHILD = path.join(ROOT, "bench", "lib", "testing", "peak-rss-child.ts");
const MB = 1024 ** 2;

interface ChildPeak {
  held: number;
  maxRssMB: number;
}

describe("MemoryProbe's peak RSS", () => {
  // Each benchmark measures a child spawned by the runner, which by then may hold far more memory
  // than the child ever will (a renderer build runs in it first).
  it("is the measured process's own, not that of the larger process that spawned it", async () => {
    const ballast = Array.from({ length: 700 }, () => Buffer.alloc(MB, 1));
    expect(process.memoryUsage().rss / MB).toBeGreaterThan(700);

    const idle = await runJsonChild<ChildPeak>(CHILD, ["--hold-mb", "0"]);
    const holding = await runJsonChild<ChildPeak>(CHILD, ["--hold-mb", "400"]);

    expect(ballast).toHaveLength(700);
    expect(idle.maxRssMB).toBeLessThan(350);
    // And it is a peak: the 400 MB the child held are in it.
    expect(holding.held).toBe(400);
    expect(holding.maxRssMB).toBeGreaterThan(400);
    expect(holding.maxRssMB).toBeLessThan(idle.maxRssMB + 500);
  }, 60_000);
});
