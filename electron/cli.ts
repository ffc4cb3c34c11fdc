// `leasekeeper` in a terminal: a thin host over the core. Run as `npx tsx electron/cli.ts <command>`,
// `npm run leasekeeper -- <command>`, or the `leasekeeper` bin.
import { runCli } from "./core/cli/run.js";

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
