import { PLUGIN_MESSAGES } from "../../../shared/domain/codes.js";
import type { UnknownReason } from "../../../shared/domain/inventory.js";
import type { FailureCodes } from "../errors/codes.js";
import { CoreError } from "../errors/core-error.js";

/** How a CreateOS call failed; the list lives with every other failure code. */
export type CreateosErrorKind = FailureCodes["createos"];

/** Fixed labels for what was being done, used in messages and the audit log. */
export const CREATEOS_OPERATIONS = {
  list: "sandbox listing",
  get: "sandbox lookup",
  delete: "sandbox destroy",
  pause: "sandbox pause",
  resume: "sandbox resume",
  whoami: "identity check",
  exec: "sandbox command",
} as const;
export type CreateosOperation = (typeof CREATEOS_OPERATIONS)[keyof typeof CREATEOS_OPERATIONS];

/**
 * A failed CreateOS call. Its message is a fixed sentence built from the code, the HTTP status and a
 * fixed operation label: never a key, a URL, a query or a provider body (CreateOS error bodies may echo
 * what was sent, so they are read by nobody).
 */
export class CreateosError extends CoreError<"createos"> {
  override readonly name = "CreateosError";
  /** The HTTP status of the last response, or null when none arrived. */
  readonly httpStatus: number | null;
  readonly operation: CreateosOperation;
  /** Requests this call made before failing (retries included); 0 when refused up front. */
  readonly requests: number;

  constructor(
    code: CreateosErrorKind,
    operation: CreateosOperation,
    httpStatus: number | null,
    requests = 0,
  ) {
    super("createos", code, messageFor(code, operation, httpStatus));
    this.operation = operation;
    this.httpStatus = httpStatus;
    this.requests = requests;
  }

  withRequests(requests: number): CreateosError {
    return new CreateosError(this.code, this.operation, this.httpStatus, requests);
  }
}

export function isCreateosError(value: unknown): value is CreateosError {
  return value instanceof CreateosError;
}

function messageFor(
  kind: CreateosErrorKind,
  operation: CreateosOperation,
  httpStatus: number | null,
): string {
  switch (kind) {
    case "network":
      return "CreateOS connection failed.";
    case "timeout":
      return `CreateOS request timed out during ${operation}.`;
    case "invalid-response":
      return "CreateOS returned an invalid response.";
    case "refused-redirect":
      return `CreateOS answered with a redirect during ${operation}; redirects are refused.`;
    case "invalid-id":
      return PLUGIN_MESSAGES.invalidResourceId;
    default:
      return httpStatus === null
        ? `CreateOS request failed during ${operation}.`
        : `CreateOS request failed (HTTP ${httpStatus}) during ${operation}.`;
  }
}

export function kindForStatus(status: number): CreateosErrorKind {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not-found";
  if (status === 409) return "conflict";
  if (status === 429) return "rate-limited";
  if (status >= 500) return "server-error";
  if (status >= 300 && status < 400) return "refused-redirect";
  return "rejected";
}

/** How a failed listing reads in the inventory: every one of these makes the rows `unknown`. */
export function unknownReasonFor(kind: CreateosErrorKind): UnknownReason {
  switch (kind) {
    case "unauthorized":
    case "forbidden":
    case "network":
    case "timeout":
    case "rate-limited":
    case "server-error":
      return kind;
    default:
      return "invalid-response";
  }
}
