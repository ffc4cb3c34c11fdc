import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World } from "../actions/testing/world.js";
import { runCliCaptured } from "./testing/run-captured.js";

// A command that needs the inventory, run when its lease source cannot be read: it says why, once, with
// no key in it, not only that it could not.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** A world whose ledger file is gone, the path it was named by (so the reason given) holding a key in use. */
async function unreadableWorld(): Promise<{ key: string }> {
  world = await buildWorld({
    sandboxes: [{ id: "sb-unread" }],
    environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
    leases: [{ id: "lease-unread", environmentId: "env-1", sandboxId: "sb-unread" }],
  });
  const key = world.env.LK_KEY_A!;
  const config = JSON.parse(readFileSync(world.configFile, "utf8")) as { sources: { path: string }[] };
  config.sources[0]!.path = `gone-${key}.json`;
  writeFileSync(world.configFile, JSON.stringify(config));
  return { key };
}

function cli(args: string[]) {
  return runCliCaptured(args, world!);
}

/** How many times the output says why the file could not be read: the reason, said once. */
function reasons(output: string): number {
  return output.split("(ENOENT)").length - 1;
}

describe("a command whose inventory cannot be read", () => {
  it.each([
    ["plan", ["plan", "--action", "destroy", "--lease", "lease-unread"]],
    ["quarantine --lease", ["quarantine", "--lease", "lease-unread", "--hours", "1"]],
  ])("%s says why no plan was made, once, keys taken out", async (_, args) => {
    const { key } = await unreadableWorld();
    const ran = await cli(args);
    expect(ran.code).toBe(1);
    const output = `${ran.stdout}${ran.stderr}`;
    expect(output).toMatch(
      /^leasekeeper (plan|quarantine): The inventory could not be read \(Cannot read the ledger gone-.+\.json: .+ \(ENOENT\)\), so no plan was made\.\n$/,
    );
    expect(reasons(output), output).toBe(1);
    expect(output).not.toContain(key);
  });

  it("quarantine --untracked says why once, keys taken out", async () => {
    const { key } = await unreadableWorld();
    const ran = await cli(["quarantine", "--untracked", "sb-unread", "--hours", "1"]);
    expect(ran.code).toBe(1);
    const output = `${ran.stdout}${ran.stderr}`;
    expect(reasons(output), output).toBe(1);
    expect(output).not.toContain(key);
  });

  it("scan says why once, keys taken out", async () => {
    const { key } = await unreadableWorld();
    const ran = await cli(["scan"]);
    expect(ran.code).toBe(1);
    const output = `${ran.stdout}${ran.stderr}`;
    expect(reasons(output), output).toBe(1);
    expect(output).not.toContain(key);
  });

  // Commands that scan and then print the failure as the runner answers it: the runner takes the keys out.
  it.each([
    ["prove", ["prove", "--lease", "lease-unread"]],
    ["repair", ["repair", "--lease", "lease-unread", "--format", "json"]],
  ])("%s says why, keys taken out", async (_, args) => {
    const { key } = await unreadableWorld();
    const ran = await cli(args);
    expect(ran.code).toBe(1);
    const output = `${ran.stdout}${ran.stderr}`;
    expect(reasons(output), output).toBe(1);
    expect(output).toContain("gone-");
    expect(output).not.toContain(key);
  });
});
