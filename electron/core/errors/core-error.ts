import type { FailureArea, FailureCode } from "./codes.js";

/**
 * A failure the core raises on purpose: where it arose, a code a caller can branch on, and one sentence
 * for the operator. The message crosses to the screen, a terminal and the audit log as is, so it is
 * fixed text or built only from what the operator already sees (ids, file paths, variable names), never
 * a key, a token, a connection string or a server's reply. `cause` is for a debugger, never shown.
 */
export class CoreError<A extends FailureArea = FailureArea> extends Error {
  override readonly name: string = "CoreError";
  readonly area: A;
  readonly code: FailureCode<A>;

  constructor(area: A, code: FailureCode<A>, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.area = area;
    this.code = code;
  }
}

/** A CoreError, of one area when one is named. */
export function isCoreError<A extends FailureArea = FailureArea>(
  value: unknown,
  area?: A,
): value is CoreError<A> {
  return value instanceof CoreError && (area === undefined || value.area === area);
}
