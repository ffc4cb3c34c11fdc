#!/usr/bin/env node
// The `leasekeeper` bin: runs electron/cli.ts under tsx (the CLI is TypeScript run from source), with
// the caller's arguments, stdio and exit code.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const tsxCli = fileURLToPath(import.meta.resolve("tsx/cli"));
const entry = fileURLToPath(new URL("../electron/cli.ts", import.meta.url));

const child = spawn(process.execPath, [tsxCli, entry, ...process.argv.slice(2)], { stdio: "inherit" });
const forward = (signal) => child.kill(signal);
process.on("SIGINT", forward);
process.on("SIGTERM", forward);
child.on("exit", (code, signal) => {
  process.off("SIGINT", forward);
  process.off("SIGTERM", forward);
  if (signal !== null) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
