import { describe, expect, it } from "vitest";
import { loadCommands, runCli } from "./run.js";

function io() {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      stdout: { write: (text: string) => (out.stdout += text) },
      stderr: { write: (text: string) => (out.stderr += text) },
      env: {},
      cwd: process.cwd(),
    },
  };
}

describe("runCli", () => {
  it("finds every command file in commands/", async () => {
    expect([...(await loadCommands()).keys()]).toContain("scan");
  });

  it("lists the commands for --help and exits 2 with no command", async () => {
    const help = io();
    expect(await runCli(["--help"], help.io)).toBe(0);
    expect(help.out.stdout).toMatch(/^Usage: leasekeeper <command>/);
    expect(help.out.stdout).toMatch(/^ {2}scan {2}/m);
    expect(await runCli([], io().io)).toBe(2);
  });

  it("refuses an unknown command or flag with one line and exit 2", async () => {
    const unknown = io();
    expect(await runCli(["frobnicate"], unknown.io)).toBe(2);
    expect(unknown.out.stderr).toBe(
      'leasekeeper: unknown command "frobnicate". Run "leasekeeper --help" for the list.\n',
    );
    const flag = io();
    expect(await runCli(["scan", "--nope"], flag.io)).toBe(2);
    expect(flag.out.stderr.trim().split("\n")).toHaveLength(1);
    expect(flag.out.stderr).toMatch(/^leasekeeper scan: .*--nope.* Run "leasekeeper scan --help"\.\n$/);
  });

  it("prints a command's usage for --help", async () => {
    const help = io();
    expect(await runCli(["scan", "--help"], help.io)).toBe(0);
    expect(help.out.stdout).toMatch(
      /^Usage: leasekeeper scan \[--config FILE\] \[--environment ID\] \[--json\]/,
    );
  });
});
