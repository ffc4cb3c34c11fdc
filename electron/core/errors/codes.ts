import type { ErrorCode } from "../../../shared/contract/index.js";

/**
 * Every code the core fails with, by the area the failure arose in. A caller branches on the code; the
 * hosts turn each one into the contract's code, an HTTP status and an exit code in one table
 * (./host-answers.ts), so a new code that is not mapped there does not compile.
 */
export interface FailureCodes {
  /** A core call refusing a request in the contract's own words. */
  call: ErrorCode;
  /** A request the action engine refuses as a whole (an expired plan, an unknown job). */
  action:
    | "invalid-request"
    | "plan-not-found"
    | "plan-expired"
    | "plan-consumed"
    | "plan-cancelled"
    | "count-not-confirmed"
    | "not-in-plan"
    | "nothing-kept"
    | "job-not-found"
    | "job-not-interrupted"
    | "job-already-resumed"
    | "job-running"
    | "nothing-to-retry"
    | "inventory-unavailable"
    | "engine-closed";
  /** A CreateOS call, by how it failed. */
  createos:
    | "unauthorized"
    | "forbidden"
    | "not-found"
    | "conflict"
    | "rate-limited"
    | "server-error"
    /** Any other 4xx (400, 402, 410, 422): the provider refused the request as made. */
    | "rejected"
    | "network"
    | "timeout"
    | "invalid-response"
    | "refused-redirect"
    /** A sandbox id that fails the plugin's pattern; refused before any request is made. */
    | "invalid-id";
  /** A lease source that cannot be read, or a row it holds that cannot be used. */
  source: "not-configured" | "unreachable" | "unreadable" | "malformed" | "invalid-id";
  /** Where keys are kept. */
  vault: "read-only" | "refused" | "corrupt" | "locked" | "io";
  /**
   * The inventory: the worker's thread ran out of its heap budget and was ended (and started again),
   * rescans kept replacing it while a proof was being read, or it holds no row with a lease id asked for
   * (where a part of a source was not read, the row may be there).
   */
  inventory: "over-heap-budget" | "replaced-while-proving" | "lease-not-found";
  /** The local database or the team's shared one. */
  store: "unopenable" | "bad-migrations" | "not-configured" | "shared-unusable";
  /** The config file. */
  config: "unreadable" | "invalid";
  /** A lease repair written to Paperclip's database. */
  repair: "not-applied";
  /** Wrong flags or arguments on the command line. */
  usage: "bad-arguments";
  /** A browser-host request that never reached the handlers. */
  http: "body-too-large" | "body-unreadable";
}

export type FailureArea = keyof FailureCodes;
export type FailureCode<A extends FailureArea = FailureArea> = FailureCodes[A];
