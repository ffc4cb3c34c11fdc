import { runCli } from "../run.js";

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `leasekeeper <args>` in this process, as a terminal in `at.dir` with `at.env` would run it, its output kept. */
export async function runCliCaptured(
  args: string[],
  at: { env: NodeJS.ProcessEnv; dir: string },
): Promise<CapturedRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: at.env,
    cwd: at.dir,
  });
  return { code, stdout, stderr };
}
