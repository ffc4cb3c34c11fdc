import type { z } from "zod";

/** Zod issues as "field path → first message", for messages shown next to each field. */
export function fieldErrors(error: z.ZodError | undefined | null): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!error) return errors;
  for (const issue of error.issues) {
    const key = issue.path.map(String).join(".");
    if (!(key in errors)) errors[key] = issue.message;
  }
  return errors;
}
