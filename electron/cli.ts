// `leasekeeper` in a terminal: a thin host over the core. Run as `npx tsx electron/cli.ts <command>`,
// `npm run leasekeeper -- <command>`, or the `leasekeeper` bin.
import { runCli } from "./core/cli/run.js";

// `leasekeeper scan | head` closes our stdout early; that is the reader's choice, not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
