import { readFile } from "node:fs/promises";
import { type PolicyProblem, type PolicyReading, parsePolicyText } from "./policy-text.js";

/** A policy file is a few rules, not a data set: anything larger is a mistake, not a policy. */
export const POLICY_FILE_LIMIT = 1024 * 1024;

/**
 * Reads and checks the policy file at `path`. A file that cannot be read is one problem, said like the
 * others (with no line), so `watch` and the app report it the same way.
 */
export async function readPolicyFile(path: string): Promise<PolicyReading> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    return unreadable(path, readError(error));
  }
  if (bytes.length > POLICY_FILE_LIMIT) {
    return unreadable(path, `it is ${bytes.length} bytes; a policy file is at most ${POLICY_FILE_LIMIT}`);
  }
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    return parsePolicyText(text.decode(bytes));
  } catch (error) {
    if (error instanceof TypeError) return unreadable(path, "it is not UTF-8 text");
    throw error;
  }
}

function readError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file; check the path given to --policy";
    case "EACCES":
    case "EPERM":
      return "permission denied; the janitor's user must be able to read it";
    case "EISDIR":
      return "it is a folder, not a file";
    default:
      return code === undefined ? "it could not be read" : `it could not be read (${code})`;
  }
}

function unreadable(path: string, why: string): PolicyReading {
  const problem: PolicyProblem = {
    line: 0,
    column: 0,
    field: "(the file)",
    message: why,
    text: `${path}: ${why}`,
  };
  return { ok: false, problems: [problem] };
}
