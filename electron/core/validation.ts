import type { z } from "zod";

/** The first issue as `field.path: what is wrong` — never the offending value. */
export function describeIssue(issues: readonly z.core.$ZodIssue[], prefix = ""): string {
  const issue = issues[0];
  const field = [prefix, ...(issue?.path.map(String) ?? [])].filter((part) => part !== "").join(".");
  const message =
    issue === undefined
      ? "is invalid"
      : issue.code === "unrecognized_keys"
        ? `unknown field(s) ${issue.keys.join(", ")}`
        : issue.message;
  return field === "" ? `${message}.` : `${field}: ${message}.`;
}
