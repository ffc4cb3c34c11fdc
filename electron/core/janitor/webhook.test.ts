import { describe, expect, it } from "vitest";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { failureRun, sameFailure } from "./failure-run.js";
import { shouldNotify, webhookBody, webhookNotice } from "./webhook.js";

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

  it("is told a failure once, again when its reason changes, and when passes succeed after it", () => {
    const first = { ...FAILED, ...failureRun(null, FAILED) };
    expect(first.failing).toEqual({ passes: 1, since: FAILED.startedAt, told: null });
    expect(webhookNotice(first)).toEqual({ send: true });
    const told = {
      ...first,
      failing: { ...first.failing!, told: { reason: FAILED.error!, at: FAILED.startedAt } },
    };

    const later = { ...FAILED, startedAt: "2026-01-01T00:05:00.000Z" };
    const same = { ...later, ...failureRun(told, later) };
    expect(same.failing).toMatchObject({ passes: 2, since: FAILED.startedAt });
    expect(webhookNotice(same)).toEqual({
      send: false,
      skipped: `the same failure as the pass at ${FAILED.startedAt}, told then; 2 failed passes in a row`,
    });
    const other = { ...later, error: "CreateOS answered 503 listing sandboxes" };
    expect(webhookNotice({ ...other, ...failureRun(told, other) })).toEqual({ send: true });
    // Not taken (the receiver was down): the same failure is sent again.
    expect(webhookNotice({ ...later, ...failureRun(first, later) })).toEqual({ send: true });

    const counts = { selected: 0, wouldAct: 0, done: 0, failed: 0, skipped: 0, new: 0 };
    const good = { ...later, error: null, counts };
    const back = { ...good, ...failureRun(same, good) };
    expect(back).toMatchObject({ failing: null, recovered: { passes: 2, since: FAILED.startedAt } });
    expect(webhookNotice(back)).toEqual({ send: true });
    expect(webhookBody(back, (text) => text).text).toBe(
      `Leasekeeper janitor (night-janitor): passes succeed again after 2 failed passes (the first at ${FAILED.startedAt}); 0 done, 0 failed, 0 new`,
    );
    // The pass after that, with nothing done and nothing new, says nothing, as before.
    const quiet = { ...good, ...failureRun(back, good) };
    expect(quiet.recovered).toBeNull();
    expect(webhookNotice(quiet)).toEqual({ send: false, skipped: null });
  });

  it("takes a failure whose sentence differs only by a number as the same failure", () => {
    const ledger = (byte: number) =>
      `The scan could not read a lease source: ledger:ledger.json: ledger file /srv/leases-2026/ledger.json breaks at byte ${byte}: it is not valid JSON.`;
    const first = { ...FAILED, error: ledger(3) };
    const told = {
      ...first,
      ...failureRun(null, first),
      failing: { passes: 1, since: first.startedAt, told: { reason: ledger(3), at: first.startedAt } },
    };
    const later = { ...FAILED, startedAt: "2026-01-01T00:05:00.000Z", error: ledger(4) };
    expect(webhookNotice({ ...later, ...failureRun(told, later) })).toEqual({
      send: false,
      skipped: `the same failure as the pass at ${FAILED.startedAt} but for its numbers, told then; 2 failed passes in a row`,
    });
    // A status names the cause: a key refused is not an outage.
    const status = (code: number) => `Paperclip request failed (HTTP ${code}) while listing companies.`;
    expect(sameFailure(status(401), status(503))).toBe(false);
    expect(sameFailure(status(503), status(503))).toBe(true);
    // So does a database's SQLSTATE, digits only or not.
    const database = (code: string) =>
      `the Paperclip database could not be read (${code}) while reading leases.`;
    expect(sameFailure(database("08006"), database("53300"))).toBe(false);
    expect(sameFailure(database("57P01"), database("57P03"))).toBe(false);
    // Durations, ports, counts and times change from pass to pass; the cause does not.
    expect(
      sameFailure(
        "connect ECONNREFUSED 127.0.0.1:5432 after 3012 ms (2 tries) at 2026-01-01T00:00:00.000Z",
        "connect ECONNREFUSED 127.0.0.1:6543 after 12.5 ms (3 tries) at 2026-01-01T00:05:00.000Z",
      ),
    ).toBe(true);
    expect(sameFailure("leases[4] is malformed", "environments[4] is malformed")).toBe(false);
  });

  it("keeps a run open across a stopped pass, and starts none from another policy file's report", () => {
    const open = { ...FAILED, ...failureRun(null, FAILED) };
    const stopped = { ...FAILED, error: null, stopped: "signal" as const };
    expect(failureRun(open, stopped)).toEqual({ failing: open.failing, recovered: null });
    const elsewhere = { ...FAILED, policyFile: "/srv/other.json" };
    expect(failureRun(open, elsewhere).failing).toEqual({ passes: 1, since: FAILED.startedAt, told: null });
    // A report kept before runs were counted has none.
    const { failing: _none, ...older } = open;
    expect(failureRun(older, { ...FAILED, error: null }).recovered).toBeNull();
  });
});
