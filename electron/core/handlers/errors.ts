import type { ErrorCode } from "../../../shared/contract.js";
import { isCreateosError } from "../createos/index.js";

/**
 * An error a core call throws on purpose: a code the renderer can branch on and a sentence written for
 * the operator. The message must be fixed text (or built only from ids the operator already sees): it
 * crosses the boundary as is.
 */
export class CoreError extends Error {
  override readonly name = "CoreError";
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export function isCoreError(value: unknown): value is CoreError {
  return value instanceof CoreError;
}

/** Messages for errors nobody meant to throw: fixed, so no stray key, URL or body can ride along. */
export const FIXED_MESSAGES = {
  internal: "Leasekeeper hit an internal error; the details are in its log.",
  contract: "Leasekeeper produced an answer that does not match its contract; the details are in its log.",
  unavailable: "That part of Leasekeeper is not available in this build.",
} as const;

/**
 * Maps anything thrown by a core call to a code and a message that is safe to show. Only CoreError and
 * CreateosError messages pass through: both are fixed sentences by construction.
 */
export function describeThrown(error: unknown): { code: ErrorCode; message: string; expected: boolean } {
  if (isCoreError(error)) return { code: error.code, message: error.message, expected: true };
  if (isCreateosError(error)) {
    const code: ErrorCode = error.kind === "conflict" ? "conflict" : "unavailable";
    return { code, message: error.message, expected: true };
  }
  return { code: "internal", message: FIXED_MESSAGES.internal, expected: false };
}
