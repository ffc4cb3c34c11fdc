/**
 * A CLI command: a file in ./commands/ exporting `command`. Adding a command is adding a file; the
 * runner finds it by name. `run` returns the exit code; what it throws is answered like any host's
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
}

export { EXIT } from "../errors/host-answers.js";
