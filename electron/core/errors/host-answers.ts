import type { ErrorCode } from "../../../shared/contract/index.js";
import type { FailureArea, FailureCodes } from "./codes.js";
import { isCoreError } from "./core-error.js";

/** Messages for failures nobody meant to raise: fixed, so no stray key, URL or body can ride along. */
export const FIXED_MESSAGES = {
  internal: "Leasekeeper hit an internal error; the details are in its log.",
  contract: "Leasekeeper produced an answer that does not match its contract; the details are in its log.",
  unavailable: "That part of Leasekeeper is not available in this build.",
} as const;

/** What the renderer's contract calls each failure. */
const CONTRACT_CODES: { readonly [A in FailureArea]: Readonly<Record<FailureCodes[A], ErrorCode>> } = {
  call: {
    "invalid-request": "invalid-request",
    "untrusted-sender": "untrusted-sender",
    "not-found": "not-found",
    refused: "refused",
    "plan-expired": "plan-expired",
    "plan-consumed": "plan-consumed",
    conflict: "conflict",
    unavailable: "unavailable",
    internal: "internal",
  },
  action: {
    "invalid-request": "invalid-request",
    "plan-not-found": "not-found",
    "plan-expired": "plan-expired",
    "plan-consumed": "plan-consumed",
    // A cancelled plan is used up as a run one is: the same answer (HTTP 409), its own sentence.
    "plan-cancelled": "plan-consumed",
    "count-not-confirmed": "refused",
    "not-in-plan": "invalid-request",
    "nothing-kept": "refused",
    "job-not-found": "not-found",
    "job-not-interrupted": "conflict",
    "job-already-resumed": "conflict",
    "job-running": "conflict",
    "nothing-to-retry": "conflict",
    "inventory-unavailable": "unavailable",
    "engine-closed": "unavailable",
  },
  // The provider's own conflict (a sandbox mid-transition) is worth retrying; anything else means the
  // provider could not be used just now.
  createos: {
    unauthorized: "unavailable",
    forbidden: "unavailable",
    "not-found": "unavailable",
    conflict: "conflict",
    "rate-limited": "unavailable",
    "server-error": "unavailable",
    rejected: "unavailable",
    network: "unavailable",
    timeout: "unavailable",
    "invalid-response": "unavailable",
    "refused-redirect": "unavailable",
    "invalid-id": "unavailable",
  },
  source: {
    "not-configured": "unavailable",
    unreachable: "unavailable",
    unreadable: "unavailable",
    malformed: "unavailable",
    "invalid-id": "unavailable",
  },
  // Every vault failure is a refusal to keep or drop a key: the key the operator typed is not stored.
  vault: {
    "read-only": "refused",
    refused: "refused",
    corrupt: "refused",
    locked: "refused",
    io: "refused",
  },
  // The scan (or whatever the thread was doing) could not be done within the budget; the host still runs.
  // A proof the rescans kept overtaking is a conflict with them: nothing was recorded, and it can be asked again.
  inventory: {
    "over-heap-budget": "unavailable",
    "replaced-while-proving": "conflict",
    "lease-not-found": "not-found",
  },
  store: {
    unopenable: "unavailable",
    "bad-migrations": "internal",
    "not-configured": "unavailable",
    "shared-unusable": "unavailable",
  },
  config: { unreadable: "unavailable", invalid: "invalid-request" },
  repair: { "not-applied": "unavailable" },
  usage: { "bad-arguments": "invalid-request" },
  http: { "body-too-large": "invalid-request", "body-unreadable": "invalid-request" },
};

/** The browser host's status for each contract code. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  "invalid-request": 400,
  "untrusted-sender": 401,
  "not-found": 404,
  refused: 409,
  conflict: 409,
  "plan-expired": 410,
  "plan-consumed": 409,
  unavailable: 503,
  internal: 500,
};

/** Where HTTP has a more exact word than the contract's code. */
const HTTP_STATUS_OVERRIDES: Partial<Record<`${FailureArea}/${string}`, number>> = {
  "http/body-too-large": 413,
};

/** The CLI's exit codes: a usage error is told apart so scripts can tell a typo from a failure. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A failure as every host shows it. */
export interface HostAnswer {
  code: ErrorCode;
  /** Safe to show: the error's own sentence when it was raised on purpose, a fixed one otherwise. */
  message: string;
  /** False for a failure nobody meant to raise: a bug, worth its full detail in the log. */
  expected: boolean;
  httpStatus: number;
  exitCode: number;
}

/**
 * The one mapping from anything a core call throws to what a host answers: the IPC and HTTP result's
 * code and message, the HTTP status and the CLI's exit code. Only a CoreError's message passes through;
 * anything else is a bug whose text may hold anything, so it is replaced by a fixed sentence.
 */
export function answerFor(error: unknown): HostAnswer {
  if (!isCoreError(error)) {
    return {
      code: "internal",
      message: FIXED_MESSAGES.internal,
      expected: false,
      httpStatus: HTTP_STATUS.internal,
      exitCode: EXIT.failed,
    };
  }
  const codes = CONTRACT_CODES[error.area] as Readonly<Record<string, ErrorCode>>;
  const code = codes[error.code] ?? "internal";
  return {
    code,
    message: error.message,
    expected: true,
    httpStatus: HTTP_STATUS_OVERRIDES[`${error.area}/${error.code}`] ?? HTTP_STATUS[code],
    exitCode: error.area === "usage" ? EXIT.usage : EXIT.failed,
  };
}
