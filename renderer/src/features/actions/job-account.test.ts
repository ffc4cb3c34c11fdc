import { describe, expect, it } from "vitest";
import { jobAccount } from "./job-account";

const failure = new Error("The journal could not be read.");

describe("jobAccount", () => {
  it("has no summary for a job the events ended while main's read of it failed", () => {
    expect(jobAccount({ finished: true, answeredFinished: false, fetching: false, error: failure })).toEqual({
      kind: "unread",
      error: failure,
    });
  });

  it("is read once main has answered that the job finished, whatever a later read does", () => {
    expect(jobAccount({ finished: true, answeredFinished: true, fetching: false, error: null }).kind).toBe(
      "read",
    );
    expect(jobAccount({ finished: true, answeredFinished: true, fetching: true, error: failure }).kind).toBe(
      "read",
    );
  });

  it("is being read while main is asked after the end, and unasked before that", () => {
    expect(jobAccount({ finished: true, answeredFinished: false, fetching: true, error: failure }).kind).toBe(
      "reading",
    );
    expect(jobAccount({ finished: true, answeredFinished: false, fetching: false, error: null }).kind).toBe(
      "unasked",
    );
  });

  it("is running while the job has not ended", () => {
    expect(
      jobAccount({ finished: false, answeredFinished: false, fetching: false, error: failure }).kind,
    ).toBe("running");
  });
});
