import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "../../../shared/contract/index.js";
import { CreateosError } from "../createos/errors.js";
import { SourceError } from "../leases/source.js";
import type { FailureArea, FailureCode } from "./codes.js";
import { CoreError } from "./core-error.js";
import { answerFor, EXIT, FIXED_MESSAGES, HTTP_STATUS } from "./host-answers.js";

/**
 * The documented answer for every failure code: the contract's code (what IPC and HTTP answers carry),
 * and, where it is not the contract code's usual one, the HTTP status and the exit code.
 */
const DOCUMENTED: ReadonlyArray<[FailureArea, string, ErrorCode, { http?: number; exit?: number }?]> = [
  ...ERROR_CODES.map((code): [FailureArea, string, ErrorCode] => ["call", code, code]),
  ["action", "invalid-request", "invalid-request"],
  ["action", "plan-not-found", "not-found"],
  ["action", "plan-expired", "plan-expired"],
  ["action", "plan-consumed", "plan-consumed"],
  ["action", "plan-cancelled", "plan-consumed"],
  ["action", "count-not-confirmed", "refused"],
  ["action", "not-in-plan", "invalid-request"],
  ["action", "nothing-kept", "refused"],
  ["action", "job-not-found", "not-found"],
  ["action", "job-not-interrupted", "conflict"],
  ["action", "job-already-resumed", "conflict"],
  ["action", "job-running", "conflict"],
  ["action", "nothing-to-retry", "conflict"],
  ["action", "inventory-unavailable", "unavailable"],
  ["action", "engine-closed", "unavailable"],
  ["createos", "conflict", "conflict"],
  ...(
    [
      "unauthorized",
      "forbidden",
      "not-found",
      "rate-limited",
      "server-error",
      "rejected",
      "network",
      "timeout",
      "invalid-response",
      "refused-redirect",
      "invalid-id",
    ] as const
  ).map((code): [FailureArea, string, ErrorCode] => ["createos", code, "unavailable"]),
  ["source", "not-configured", "unavailable"],
  ["source", "unreachable", "unavailable"],
  ["source", "unreadable", "unavailable"],
  ["source", "malformed", "unavailable"],
  ["source", "invalid-id", "unavailable"],
  ["vault", "read-only", "refused"],
  ["vault", "refused", "refused"],
  ["vault", "corrupt", "refused"],
  ["vault", "locked", "refused"],
  ["vault", "io", "refused"],
  ["inventory", "over-heap-budget", "unavailable"],
  ["inventory", "replaced-while-proving", "conflict"],
  ["inventory", "lease-not-found", "not-found"],
  ["store", "unopenable", "unavailable"],
  ["store", "bad-migrations", "internal"],
  ["store", "not-configured", "unavailable"],
  ["store", "shared-unusable", "unavailable"],
  ["config", "unreadable", "unavailable"],
  ["config", "invalid", "invalid-request"],
  ["repair", "not-applied", "unavailable"],
  ["usage", "bad-arguments", "invalid-request", { exit: 2 }],
  ["http", "body-too-large", "invalid-request", { http: 413 }],
  ["http", "body-unreadable", "invalid-request"],
];

describe("answerFor: the one mapping from a failure to what every host answers", () => {
  it.each(DOCUMENTED)("%s/%s answers %s", (area, code, contractCode, exceptions) => {
    const message = `A sentence for ${area}/${code}.`;
    const answer = answerFor(new CoreError(area, code as FailureCode, message));
    expect(answer).toEqual({
      code: contractCode,
      message,
      expected: true,
      httpStatus: exceptions?.http ?? HTTP_STATUS[contractCode],
      exitCode: exceptions?.exit ?? EXIT.failed,
    });
  });

  it.each([
    ["invalid-request", 400],
    ["untrusted-sender", 401],
    ["not-found", 404],
    ["refused", 409],
    ["conflict", 409],
    ["plan-expired", 410],
    ["plan-consumed", 409],
    ["unavailable", 503],
    ["internal", 500],
  ] as const)("the browser host answers %s with HTTP %i", (code, status) => {
    expect(HTTP_STATUS[code]).toBe(status);
  });

  it("answers the errors that carry their area's facts like any other of that area", () => {
    const provider = answerFor(new CreateosError("conflict", "sandbox pause", 409));
    expect(provider).toMatchObject({ code: "conflict", httpStatus: 409, expected: true });
    expect(provider.message).toBe("CreateOS request failed (HTTP 409) during sandbox pause.");
    const source = answerFor(
      new SourceError("ledger:a", "unreadable", "cannot read ledger file /x (EACCES)."),
    );
    expect(source).toMatchObject({ code: "unavailable", httpStatus: 503, exitCode: EXIT.failed });
    expect(source.message).toBe("ledger:a: cannot read ledger file /x (EACCES).");
  });

  it.each([
    ["an Error", new Error("connect postgres://lk:s3cret-canary@db.internal failed")],
    ["a TypeError", new TypeError("Cannot read properties of undefined (reading 's3cret-canary')")],
    ["a thrown string", "s3cret-canary"],
    ["an object shaped like a CoreError", { area: "call", code: "not-found", message: "s3cret-canary" }],
    ["nothing at all", undefined],
  ])("answers %s with the fixed internal sentence, never its text", (_, thrown) => {
    const answer = answerFor(thrown);
    expect(answer).toEqual({
      code: "internal",
      message: FIXED_MESSAGES.internal,
      expected: false,
      httpStatus: 500,
      exitCode: EXIT.failed,
    });
    expect(JSON.stringify(answer)).not.toContain("s3cret");
  });

  it("keeps a cause for a debugger without letting it into the answer", () => {
    const cause = new Error("EACCES s3cret-canary");
    const error = new CoreError("config", "unreadable", "/etc/lk.json: cannot be read (EACCES).", { cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(answerFor(error))).not.toContain("s3cret");
  });
});
