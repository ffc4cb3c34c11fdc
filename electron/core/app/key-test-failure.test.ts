import { describe, expect, it } from "vitest";
import { CreateosError, type CreateosErrorKind } from "../createos/index.js";
import { keyTestFailure } from "./settings-service.js";

describe("why a key failed its test, in one sentence", () => {
  it.each<[CreateosErrorKind, number | null, string]>([
    [
      "unauthorized",
      401,
      "CreateOS refused this key (HTTP 401): it is wrong, revoked, or not a key for this API URL.",
    ],
    [
      "forbidden",
      403,
      "CreateOS accepted the key but refused it access (HTTP 403): check the account's permissions.",
    ],
    ["network", null, "CreateOS could not be reached at this API URL, so the key could not be tested."],
    ["timeout", null, "CreateOS did not answer in time, so the key could not be tested."],
    ["server-error", 503, "CreateOS request failed (HTTP 503) during identity check."],
  ])("%s (%s)", (kind, status, sentence) => {
    const message = keyTestFailure(new CreateosError(kind, "identity check", status));
    expect(message).toBe(sentence);
    // The status is named once at most: the UI appends nothing.
    expect(message.match(/HTTP \d{3}/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });
});
