import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../store/database.js";
import type { Database } from "../../store/migrations.js";
import { claimKey } from "./claims.js";
import { SqliteClaims } from "./sqlite-claims.js";

// Claims on a real SQLite file, through two connections as two processes hold them: one holder per
// sandbox, an expiry that lets a dead holder's claims lapse, renewal while held, release by the holder
// only, and a resume taking over what the job it continues held.

const SANDBOX = { origin: "http://127.0.0.1:9", sandboxId: "sb-1" };
const T0 = new Date("2026-12-01T10:00:00.000Z");
const TTL = 30_000;
const later = (ms: number) => new Date(T0.getTime() + ms);

let dir: string;
const opened: Database[] = [];
function connection(): SqliteClaims {
  const db = openDatabase(dir);
  opened.push(db);
  return new SqliteClaims(db);
}

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("sandbox claims in the SQLite store", () => {
  it("lets one holder at a time take a sandbox, and a dead holder's claim lapse at its expiry", () => {
    dir = mkdtempSync(path.join(tmpdir(), "lk-claims-"));
    const app = connection();
    const cli = connection();
    const a = { owner: "engine-a", jobId: "job-a" };
    const b = { owner: "engine-b", jobId: "job-b" };
    expect(app.claim([SANDBOX], a, T0, TTL)).toEqual(new Set([claimKey(SANDBOX)]));
    expect(cli.claim([SANDBOX], b, later(1_000), TTL).size, "held by another, unexpired").toBe(0);
    expect(cli.holderOf(SANDBOX)).toMatchObject({ owner: "engine-a", jobId: "job-a" });

    // Renewed while held: still refused past the first expiry.
    app.renew("engine-a", later(20_000), TTL);
    expect(cli.claim([SANDBOX], b, later(40_000), TTL).size).toBe(0);
    // The holder stops renewing (it died): the claim lapses and the other takes it.
    expect(cli.claim([SANDBOX], b, later(51_000), TTL).size).toBe(1);
    expect(app.holderOf(SANDBOX)).toMatchObject({ owner: "engine-b" });
  });

  it("is released only by its holder, and taken over by the job that continues the holder's", () => {
    dir = mkdtempSync(path.join(tmpdir(), "lk-claims-"));
    const claims = connection();
    const other = connection();
    const holder = { owner: "engine-a", jobId: "job-1" };
    claims.claim([SANDBOX], holder, T0, TTL);
    other.release(SANDBOX, { owner: "engine-b", jobId: "job-1" });
    expect(claims.holderOf(SANDBOX), "a stranger cannot release it").not.toBeNull();

    const resume = { owner: "engine-b", jobId: "job-2" };
    expect(other.claim([SANDBOX], resume, later(1_000), TTL).size).toBe(0);
    expect(other.claim([SANDBOX], resume, later(1_000), TTL, ["job-1"]).size, "the resume of job-1").toBe(1);
    other.release(SANDBOX, resume);
    expect(claims.holderOf(SANDBOX)).toBeNull();

    claims.claim([SANDBOX, { ...SANDBOX, sandboxId: "sb-2" }], holder, T0, TTL);
    claims.releaseOwner("engine-a");
    expect(claims.holderOf(SANDBOX)).toBeNull();
  });
});
