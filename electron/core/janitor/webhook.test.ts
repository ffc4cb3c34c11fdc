import { describe, expect, it } from "vitest";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { shouldNotify, webhookBody } from "./webhook.js";

const FAILED: PassReport = {
  policyFile: "/srv/policy.json",
  operator: "night-janitor",
  mode: "act",
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:00:01.000Z",
  stopped: null,
  plan: null,
  results: [],
  quarantinesDue: {},
  resumedJobs: [],
  counts: null,
  gaps: null,
  webhook: null,
  error: "Paperclip connection failed while listing companies",
};

describe("the janitor's webhook", () => {
  it("is told of a pass that failed, with the reason and no count it did not make", () => {
    expect(shouldNotify(FAILED)).toBe(true);
    const body = webhookBody(FAILED, (text) => text);
    expect(body.text).toBe(
      "Leasekeeper janitor (night-janitor): the pass failed before selecting anything: Paperclip connection failed while listing companies",
    );
    expect(body.text).not.toMatch(/\b0 /);
    // A report that carries zeros beside its error (as the last pass of an older version kept it) too.
    const zeros = { selected: 0, wouldAct: 0, done: 0, failed: 0, skipped: 0, new: 0 };
    expect(shouldNotify({ ...FAILED, counts: zeros })).toBe(true);
  });

  it("passes what it says through the redactor", () => {
    const body = webhookBody({ ...FAILED, error: "refused sk-live-123" }, (text) =>
      text.split("sk-live-123").join("[redacted]"),
    );
    expect(JSON.stringify(body)).not.toContain("sk-live-123");
  });

  it("is not told of an acting pass that did nothing and found nothing new", () => {
    const counts = { selected: 0, wouldAct: 0, done: 0, failed: 0, skipped: 0, new: 0 };
    expect(shouldNotify({ ...FAILED, error: null, counts })).toBe(false);
  });
});
