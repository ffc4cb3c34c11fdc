/**
 * A CLI command: a file in ./commands/ exporting `command`, listed in ./commands/index.ts (imported
 * statically, so the CLI bundles); the runner finds it there by name. `run` returns the exit code; what it throws is answered like any host's
 * failure (a usage error, `CoreError("usage", …)`, also prints the hint to run `--help`).
 */
export interface CliCommand {
  name: string;
  /** One line for `leasekeeper --help`. */
  summary: string;
  /** Usage text for `leasekeeper <name> --help`. */
  usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Set by the runner: a command that opens the core hands the core's redactor over here, so every line
   * the command writes to `stdout` and `stderr` from then on, and the failure the runner prints
   * afterwards, has the keys taken out, whichever command wrote it and however.
   */
  keysInUse?: (redact: (text: string) => string) => void;
}

export { EXIT } from "../errors/host-answers.js";
