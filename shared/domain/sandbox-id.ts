/** The plugin's validator for CreateOS resource ids; an id must pass it before it goes into a URL path. */
export const SANDBOX_ID_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

export function isValidSandboxId(value: unknown): value is string {
  return typeof value === "string" && SANDBOX_ID_PATTERN.test(value);
}

/**
 * The sandbox id a lease row names, or null when it names none. An empty or blank id is treated as none:
 * there is nothing at CreateOS it could point to, and it must never reach a URL path.
 */
export function recordedSandboxId(row: { providerLeaseId: string | null }): string | null {
  const id = row.providerLeaseId;
  return typeof id === "string" && /\S/.test(id) ? id : null;
}
