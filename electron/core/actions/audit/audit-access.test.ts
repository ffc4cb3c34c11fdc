import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../store/database.js";
import { openEngineStore } from "../engine-store.js";
import { AuditAccess } from "./audit-access.js";
import { AuditLog, type AuditRecord } from "./audit-log.js";

// What the console's audit view and export are sent: the newest entries that match, and whether an
// older one that matches was left out.

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-audit-access-"));
  db = openDatabase(dir);
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

function entry(n: number): AuditRecord {
  return {
    at: new Date(Date.UTC(2026, 10, 1) + n * 1_000).toISOString(),
    kind: "item",
    operator: "operator",
    host: "host",
    action: n % 2 === 0 ? "destroy" : "release",
    planId: `plan-${n}`,
    jobId: `job-${n}`,
    itemId: `item-${n}`,
    leaseId: `lease-${n}`,
    sandboxId: `sb-${n}`,
    origin: "http://127.0.0.1:9",
    credential: "alpha",
    environmentId: "env-1",
    environmentName: "Agents",
    companyId: "company-1",
    effect: "delete",
    verdict: null,
    evidence: null,
    confirmation: "click",
    override: false,
    outcome: "confirmed",
    reason: null,
    httpStatus: 200,
    durationMs: 10,
    message: null,
  };
}

function write(count: number): AuditAccess {
  const log = new AuditLog(db);
  db.transaction(() => {
    for (let n = 0; n < count; n++) log.append([entry(n)]);
  })();
  return new AuditAccess(openEngineStore(db, undefined));
}

describe("the newest audit entries", () => {
  it("says the list is cut when more match than the limit, and keeps the newest", async () => {
    const access = write(1_001);
    const { entries, cut } = await access.query({ limit: 1_000 });
    expect(cut).toBe(true);
    expect(entries).toHaveLength(1_000);
    expect(entries[0]?.sandboxId).toBe("sb-1");
    expect(entries.at(-1)?.sandboxId).toBe("sb-1000");
  });

  it("says it is whole when exactly the limit match, or fewer under a filter", async () => {
    const access = write(1_001);
    expect((await access.query({ limit: 1_001 })).cut).toBe(false);
    const destroys = await access.query({ action: "destroy", limit: 501 });
    expect(destroys).toMatchObject({ cut: false });
    expect(destroys.entries).toHaveLength(501);
    const cutDestroys = await access.query({ action: "destroy", limit: 500 });
    expect(cutDestroys.cut).toBe(true);
    expect(cutDestroys.entries.every((found) => found.action === "destroy")).toBe(true);
  });

  it("says an export is cut at its limit too, and holds only the entries it says", async () => {
    const access = write(12);
    const cut = await access.export("json", { limit: 10 });
    expect(cut.cut).toBe(true);
    expect((JSON.parse(cut.content) as unknown[]).length).toBe(10);
    const whole = await access.export("csv", { limit: 12 });
    expect(whole.cut).toBe(false);
    expect(whole.content.trimEnd().split("\r\n")).toHaveLength(13);
  });
});
