import type { ErrorCode } from "../../../shared/contract/channels";

/** A failed call, as the UI sees it: the contract's error code and a sentence safe to show. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

export const TRANSPORT_MESSAGES = {
  unreachable: "Leasekeeper's host did not answer. Check that it is still running, then retry.",
  token:
    "This page's access token is missing or no longer valid. Open the URL that Leasekeeper printed when it started.",
  malformed: "Leasekeeper's host sent an answer this page could not read. Reload the page.",
} as const;
