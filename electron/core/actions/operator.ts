import os from "node:os";
import type { Operator } from "./jobs/recorder.js";

/** Who is acting, as the audit log records it: the OS user name and the machine's host name. */
export function currentOperator(): Operator {
  let name: string;
  try {
    name = os.userInfo().username;
  } catch {
    // A container user with no passwd entry has no user info; the environment may still name it.
    name = process.env.USER ?? process.env.USERNAME ?? "unknown";
  }
  return { name, host: os.hostname() };
}
