/** The plugin's validator for CreateOS resource ids; an id must pass it before it goes into a URL path. */
export const SANDBOX_ID_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

export function isValidSandboxId(value: unknown): value is string {
  return typeof value === "string" && SANDBOX_ID_PATTERN.test(value);
}
