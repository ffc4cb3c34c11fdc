/**
 * A CLI command: a file in ./commands/ exporting `command`. Adding a command is adding a file; the
 * runner finds it by name. `run` returns the exit code; anything it throws is reported as one line.
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

/** Wrong flags or arguments: reported with the command's usage hint and exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
