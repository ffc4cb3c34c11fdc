/**
 * The message to show for a failed call. Main sends fixed, secret-free messages; anything else (a
 * network error in the bridge, a bug) gets one sentence that says what to do, never a raw stack.
 */
export function errorMessage(error: unknown): string {
  if (error && typeof error === "object" && "message" in error && "code" in error) {
    const message = (error as { message: unknown }).message;
    if (typeof message === "string" && message !== "") return message;
  }
  return "Leasekeeper's main side did not answer. Check that it is still running, then retry.";
}

export function errorCode(error: unknown): string | null {
  if (error && typeof error === "object" && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : null;
  }
  return null;
}
