import { isCreateosError } from "../createos/errors.js";

/**
 * A request the engine refuses as a whole (an expired plan, an unknown job). Hosts turn it into
 * `{ ok: false, error: { code, message } }`; the message is a fixed sentence with no secret in it.
 */
export const ACTION_ERROR_CODES = [
  "invalid-request",
  "plan-not-found",
  "plan-expired",
  "plan-consumed",
  "plan-cancelled",
  "count-not-confirmed",
  "not-in-plan",
  "nothing-kept",
  "job-not-found",
  "job-not-interrupted",
  "job-already-resumed",
  "job-running",
  "nothing-to-retry",
  "inventory-unavailable",
  "engine-closed",
] as const;
export type ActionErrorCode = (typeof ACTION_ERROR_CODES)[number];

export class ActionError extends Error {
  override readonly name = "ActionError";
  readonly code: ActionErrorCode;

  constructor(code: ActionErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export function isActionError(value: unknown): value is ActionError {
  return value instanceof ActionError;
}

/** What a failed CreateOS call means for an item: the HTTP status (when one arrived) and a fixed sentence. */
export interface ProviderFailure {
  httpStatus: number | null;
  reason: string;
  message: string;
}

/**
 * The client's typed errors carry fixed, credential-free messages; anything else (a bug, a source read
 * error) is reduced to a fixed sentence, so nothing unexpected reaches the audit log or a screen.
 */
export function providerFailure(error: unknown): ProviderFailure {
  if (isCreateosError(error)) {
    return {
      httpStatus: error.httpStatus,
      reason: error.httpStatus === null ? error.kind : `http-${error.httpStatus}`,
      message: error.message,
    };
  }
  return {
    httpStatus: null,
    reason: "internal-error",
    message: "The action failed unexpectedly; nothing was reported as done.",
  };
}
