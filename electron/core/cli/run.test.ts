import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { CoreError } from "../errors/core-error.js";
import { FIXED_MESSAGES } from "../errors/host-answers.js";
import type { CliCommand } from "./command.js";
import { builtInCommands, runCli } from "./run.js";

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
  it("registers every command of commands/, listed by name", async () => {
    const dir = new URL("./commands/", import.meta.url);
    const files = (await readdir(dir)).filter(
      (file) => /^[a-z][a-z0-9-]*\.ts$/.test(file) && file !== "index.ts",
    );
    const found: CliCommand[] = [];
    for (const file of files) {
      const module = (await import(new URL(file, dir).href)) as { command?: CliCommand };
      if (module.command !== undefined) found.push(module.command);
    }
    const registered = [...builtInCommands().values()];
    expect(new Set(registered)).toEqual(new Set(found));
    expect(registered.map((command) => command.name)).toEqual(found.map((command) => command.name).sort());
    expect(registered.map((command) => command.name)).toContain("scan");
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

  describe("a command's failure, answered through the one mapping", () => {
    function failing(thrown: unknown): ReadonlyMap<string, CliCommand> {
      const command: CliCommand = {
        name: "fail",
        summary: "Fails.",
        usage: "Usage: leasekeeper fail",
        run: async () => {
          throw thrown;
        },
      };
      return new Map([["fail", command]]);
    }

    it("exits 2 with the usage hint for a usage error", async () => {
      const run = io();
      const thrown = new CoreError("usage", "bad-arguments", "Give at least one --lease.");
      expect(await runCli(["fail"], run.io, failing(thrown))).toBe(2);
      expect(run.out.stderr).toBe(
        'leasekeeper fail: Give at least one --lease. Run "leasekeeper fail --help".\n',
      );
    });

    it("exits 1 with the error's own sentence for any other failure raised on purpose", async () => {
      const run = io();
      const thrown = new CoreError("source", "unreadable", "ledger:a: cannot read ledger file /x (EACCES).");
      expect(await runCli(["fail"], run.io, failing(thrown))).toBe(1);
      expect(run.out.stderr).toBe("leasekeeper fail: ledger:a: cannot read ledger file /x (EACCES).\n");
    });

    it("exits 1 with a fixed sentence for an error nobody meant to raise, never its text", async () => {
      const run = io();
      const thrown = new Error("connect postgres://lk:s3cret-canary@db.internal failed");
      expect(await runCli(["fail"], run.io, failing(thrown))).toBe(1);
      expect(run.out.stderr).toBe(`leasekeeper fail: ${FIXED_MESSAGES.internal}\n`);
    });
  });
});
