import type { JSONPath } from "jsonc-parser";
import type { z } from "zod";
import { type Policy, PolicySchema } from "../../../shared/domain/janitor/policy.js";
import { formatPath, jsonPositions, type Position } from "./json-positions.js";

/**
 * Reading a policy file's text: JSON first, then the policy schema, and every problem said as "line L,
 * column C: rules[2].select.age: must be a duration like 30m, 2h or 7d", so the operator can go straight
 * to it. All problems are reported at once, in the order they appear in the file.
 */

export interface PolicyProblem extends Position {
  /** The field, as `rules[2].select.age`. */
  field: string;
  message: string;
  /** The whole sentence: "line 4, column 17: rules[0].action: must be one of quarantine, destroy, release". */
  text: string;
}

export type PolicyReading = { ok: true; policy: Policy } | { ok: false; problems: PolicyProblem[] };

const EXPECTED: Record<string, string> = {
  object: "an object",
  array: "a list",
  string: "a string",
  number: "a number",
  boolean: "true or false",
};

export function parsePolicyText(source: string): PolicyReading {
  // A byte-order mark is not JSON, but editors write one; a space keeps every column where it was.
  const text = source.startsWith("\uFEFF") ? ` ${source.slice(1)}` : source;
  const positions = jsonPositions(text);
  // The first syntax error is the one to fix: those after it are mostly its echoes.
  const [syntaxError] = positions.syntaxErrors;
  if (syntaxError !== undefined) {
    const message = `the file is not valid JSON: ${syntaxError.message}`;
    const { line, column } = syntaxError;
    return {
      ok: false,
      problems: [{ line, column, field: "", message, text: `line ${line}, column ${column}: ${message}` }],
    };
  }
  const problems = positions.duplicateKeys.map((duplicate) =>
    problem(duplicate, duplicate.path, duplicate.message),
  );
  const parsed = PolicySchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(...issueProblems(issue, positions));
  }
  if (problems.length > 0) return { ok: false, problems: sortByPlace(problems) };
  if (!parsed.success) throw new Error("unreachable: a failed parse always has an issue");
  return { ok: true, policy: parsed.data };
}

function issueProblems(
  issue: z.core.$ZodIssue,
  positions: ReturnType<typeof jsonPositions>,
): PolicyProblem[] {
  const path = issue.path.filter((segment): segment is string | number => typeof segment !== "symbol");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const full = [...path, key];
      return problem(
        positions.keyAt(full),
        full,
        "unknown field; a misspelt field would select more, so none is ignored",
      );
    });
  }
  const { position, present } = positions.valueAt(path);
  return [problem(position, path, present ? issueSentence(issue) : `missing; ${missingSentence(issue)}`)];
}

/** Zod's own wording ("Invalid input: expected string, received number") is replaced where the schema did not say it better. */
function isZodWording(issue: z.core.$ZodIssue): boolean {
  return issue.code === "invalid_type" && issue.message.startsWith("Invalid input");
}

function issueSentence(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && isZodWording(issue)) {
    return `must be ${EXPECTED[issue.expected] ?? issue.expected}`;
  }
  return issue.message;
}

function missingSentence(issue: z.core.$ZodIssue): string {
  return isZodWording(issue) ? "this field is required" : issue.message;
}

function problem(position: Position, path: JSONPath, message: string): PolicyProblem {
  const field = formatPath(path);
  return {
    line: position.line,
    column: position.column,
    field,
    message,
    text: `line ${position.line}, column ${position.column}: ${field}: ${message}`,
  };
}

function sortByPlace(problems: PolicyProblem[]): PolicyProblem[] {
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}
