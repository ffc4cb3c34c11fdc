import os from "node:os";
import type { Operator } from "./jobs/recorder.js";

/**
 * Who is acting, as the audit log records it: the configured operator name with the OS user beside it
 * ("Ada (ada)"), or the OS user alone, and the machine's host name. On a store a team shares, the
 * configured name tells people apart where OS users repeat (every container is "root").
 */
export function currentOperator(configured?: string): Operator {
  let name: string;
  try {
    name = os.userInfo().username;
  } catch {
    // A container user with no passwd entry has no user info; the environment may still name it.
    name = process.env.USER ?? process.env.USERNAME ?? "unknown";
  }
  return { name: configured === undefined ? name : `${configured} (${name})`, host: os.hostname() };
}
