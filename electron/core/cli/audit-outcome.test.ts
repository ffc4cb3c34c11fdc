import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorld, type World } from "../actions/testing/world.js";
import { runCliCaptured } from "./testing/run-captured.js";

// `leasekeeper audit --outcome` names an outcome the log records; a word it never records would match
// nothing and read as "nothing happened", so it is refused as a mistake of the command line.

let world: World;

beforeAll(async () => {
  world = await buildWorld({ sandboxes: [], environments: [], leases: [] });
});
afterAll(() => world?.close());

const cli = (args: string[]) => runCliCaptured(args, world);

describe("leasekeeper audit --outcome", () => {
  it("refuses an outcome the log never records, naming those it does, with exit 2", async () => {
    const { code, stdout, stderr } = await cli(["audit", "--outcome", "confimed"]);
    expect(stdout).toBe("");
    expect(stderr).toContain(
      '--outcome must be one of planned, cancelled, confirmed, unconfirmed, failed, skipped, repaired, changed-since-read, refused, quarantined, destroyed, kept; "confimed" is not.',
    );
    expect(code).toBe(2);
  });

  it("takes an outcome of each kind of entry", async () => {
    for (const outcome of ["planned", "unconfirmed", "changed-since-read", "kept"]) {
      const { code, stdout } = await cli(["audit", "--outcome", outcome]);
      expect(stdout).toBe("No audit entries match.\n");
      expect(code).toBe(0);
    }
  });

  it("lists quarantine among the actions its usage names", async () => {
    const { stdout } = await cli(["audit", "--help"]);
    expect(stdout).toContain("[--action release|destroy|repair|quarantine]");
    expect(stdout).toContain("only release, destroy, repair or quarantine");
  });
});
