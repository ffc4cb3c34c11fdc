import { describe, expect, it } from "vitest";
import { runCliCaptured } from "./testing/run-captured.js";

// `apply` and `resume` without what they run: a mistake of the command line, answered as one (exit 2 and
// the hint to read --help), never as an internal error. Both refuse before any config is read.

const at = { env: {}, dir: process.cwd() };

describe("apply and resume without their plan or job", () => {
  it("apply without --plan is a usage error", async () => {
    const { code, stderr } = await runCliCaptured(["apply", "--confirm", "sb-1"], at);
    expect(stderr).toBe('leasekeeper apply: --plan is required. Run "leasekeeper apply --help".\n');
    expect(code).toBe(2);
  });

  it("resume without --job is a usage error", async () => {
    const { code, stderr } = await runCliCaptured(["resume", "--json"], at);
    expect(stderr).toBe('leasekeeper resume: --job is required. Run "leasekeeper resume --help".\n');
    expect(code).toBe(2);
  });
});
