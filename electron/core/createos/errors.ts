import { PLUGIN_MESSAGES } from "../../../shared/domain/codes.js";
import type { UnknownReason } from "../../../shared/domain/inventory.js";

/**
 * Every way a CreateOS call can fail, as a value callers can branch on. Messages are fixed sentences
 * built from the kind, the HTTP status and a fixed operation label: never a key, a URL, a query or a
 * provider body (CreateOS error bodies may echo what was sent, so they are read by nobody).
 */
export const CREATEOS_ERROR_KINDS = [
  "unauthorized",
  "forbidden",
  "not-found",
  "conflict",
  "rate-limited",
  "server-error",
  /** Any other 4xx (400, 402, 410, 422): the provider refused the request as made. */
  "rejected",
  "network",
  "timeout",
  "invalid-response",
  "refused-redirect",
  /** A sandbox id that fails the plugin's pattern; refused before any request is made. */
  "invalid-id",
] as const;
export type CreateosErrorKind = (typeof CREATEOS_ERROR_KINDS)[number];

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

export class CreateosError extends Error {
  override readonly name = "CreateosError";
  readonly kind: CreateosErrorKind;
  /** The HTTP status of the last response, or null when none arrived. */
  readonly httpStatus: number | null;
  readonly operation: CreateosOperation;
  /** Requests this call made before failing (retries included); 0 when refused up front. */
  readonly requests: number;

  constructor(
    kind: CreateosErrorKind,
    operation: CreateosOperation,
    httpStatus: number | null,
    requests = 0,
  ) {
    super(messageFor(kind, operation, httpStatus));
    this.kind = kind;
    this.operation = operation;
    this.httpStatus = httpStatus;
    this.requests = requests;
  }

  withRequests(requests: number): CreateosError {
    return new CreateosError(this.kind, this.operation, this.httpStatus, requests);
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
