import { isCreateosError } from "../createos/errors.js";

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
      reason: error.httpStatus === null ? error.code : `http-${error.httpStatus}`,
      message: error.message,
    };
  }
  return {
    httpStatus: null,
    reason: "internal-error",
    message: "The action failed unexpectedly; nothing was reported as done.",
  };
}
