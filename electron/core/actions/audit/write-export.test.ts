import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditQuerySchema } from "../../../../shared/domain/actions.js";
import { openDatabase } from "../../store/database.js";
import { type EngineStore, openEngineStore } from "../engine-store.js";
import { AuditAccess } from "./audit-access.js";
import { AuditLog, type AuditRecord } from "./audit-log.js";
import { type AuditExportFormat, exportAudit } from "./export.js";
import { writeAuditExport } from "./write-export.js";

// The CLI's export, written page by page as the log is read: the same bytes as the export of every
// entry at once, and each page out before the next is read.

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-audit-export-"));
  db = openDatabase(dir);
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

/** Entries as a long log holds them: verdicts and evidence on some, text a CSV must quote or guard. */
function record(n: number): AuditRecord {
  const messages = [
    null,
    "CreateOS lists the sandbox as destroyed.",
    'said "no", then\nyes',
    "=cmd|' /C calc'!A0",
  ];
  return {
    at: new Date(Date.UTC(2026, 8, 1) + n * 60_000).toISOString(),
    kind: n % 10 === 0 ? "plan" : "item",
    operator: `operator-${n % 3}`,
    host: "host, with a comma",
    action: n % 2 === 0 ? "destroy" : "release",
    planId: `plan-${Math.floor(n / 10)}`,
    jobId: n % 10 === 0 ? null : `job-${Math.floor(n / 10)}`,
    itemId: n % 10 === 0 ? null : `item-${n}`,
    leaseId: `lease-${n}`,
    sandboxId: n % 7 === 0 ? null : `sb-${n}`,
    origin: "https://api.sb.createos.sh",
    credential: "alpha",
    environmentId: `env-${n % 4}`,
    environmentName: n % 5 === 0 ? "+Agents\u00e9" : "Agents",
    companyId: "company-1",
    effect: "delete",
    verdict:
      n % 3 === 0
        ? { headline: "foreign", ownership: ["foreign-company"], provider: "running", flags: ["leaking"] }
        : null,
    evidence: n % 4 === 0 ? { marker: "0f8fad5b…", seen: n, note: "quote ' and \\ backslash" } : null,
    confirmation: n % 6 === 0 ? "typed-id" : "click",
    override: n % 11 === 0,
    outcome: n % 13 === 0 ? "failed" : "confirmed",
    reason: n % 13 === 0 ? "provider-error" : null,
    httpStatus: n % 13 === 0 ? 500 : 200,
    durationMs: n,
    message: messages[n % messages.length]!,
  } as AuditRecord;
}

function write(count: number): EngineStore {
  const log = new AuditLog(db);
  db.transaction(() => {
    for (let n = 0; n < count; n++) log.append([record(n)]);
  })();
  return openEngineStore(db, undefined);
}

/** The streamed export as one text, and each write as it came. */
async function streamed(access: AuditAccess, format: AuditExportFormat, pageSize: number, query = {}) {
  const chunks: string[] = [];
  await writeAuditExport(access.pages(query, pageSize), format, { write: (text) => chunks.push(text) });
  return { text: chunks.join(""), chunks };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

const COUNT = 2_345;

/**
 * The exports of `record(0)` to `record(2344)` as the whole-text export wrote them before the CLI's was
 * written page by page.
 */
const BEFORE = {
  csv: "2206c88840a0864df7f40c96bd45b7e361bfa7e5e5c1f819096fbd2d469eb5d5",
  json: "10b307fb0d162960993f18ead377694075ee63477d1558b81cfbd1beb07169c7",
};

describe("the audit export written page by page", () => {
  it.each(["csv", "json"] as const)(
    "writes %s byte for byte as the export of every entry at once",
    async (format) => {
      const store = write(COUNT);
      const access = new AuditAccess(store);
      const all = await store.queryAudit(AuditQuerySchema.parse({}), null);
      expect(all).toHaveLength(COUNT);

      const { text } = await streamed(access, format, 100);
      expect(sha256(text)).toBe(BEFORE[format]);
      expect(text).toBe(exportAudit(all, format));
      if (format === "json") expect(text).toBe(`${JSON.stringify(all, null, 2)}\n`);
    },
  );

  it.each(["csv", "json"] as const)(
    "writes %s as the whole export under a filter, at a page size that divides the matches, and when none match",
    async (format) => {
      const store = write(COUNT);
      const access = new AuditAccess(store);
      const query = { action: "destroy" as const, environmentId: "env-2" };
      const matching = await store.queryAudit(AuditQuerySchema.parse(query), null);
      expect(matching.length).toBeGreaterThan(0);
      expect((await streamed(access, format, 7, query)).text).toBe(exportAudit(matching, format));
      expect((await streamed(access, format, matching.length, query)).text).toBe(
        exportAudit(matching, format),
      );

      const none = { environmentId: "env-none" };
      expect((await streamed(access, format, 100, none)).text).toBe(exportAudit([], format));
    },
  );

  it("writes each page before it reads the next, and holds no more than a page in any write", async () => {
    const store = write(COUNT);
    const events: string[] = [];
    const access = new AuditAccess({
      ...store,
      auditPage: async (query, options) => {
        events.push("read");
        return store.auditPage(query, options);
      },
    });
    const chunks: string[] = [];
    await writeAuditExport(access.pages({}, 100), "csv", {
      write: (text) => {
        events.push("write");
        chunks.push(text);
      },
    });
    // The header, then one write per page of 100; the 24th page is the last (45 entries).
    expect(chunks).toHaveLength(1 + Math.ceil(COUNT / 100));
    expect(events.indexOf("write", 1)).toBeLessThan(events.lastIndexOf("read"));
    expect(events.slice(0, 4)).toEqual(["write", "read", "write", "read"]);
    // A record ends with CRLF; a line break inside a cell is a bare LF.
    const recordsPerWrite = chunks.slice(1).map((chunk) => chunk.split("\r\n").length - 1);
    expect(recordsPerWrite).toEqual([...Array(23).fill(100), 45]);
  });

  it("reads no further page while the sink holds what it was given, until it drains", async () => {
    const store = write(1_000);
    let holding = false;
    let readsWhileHolding = 0;
    let reads = 0;
    const access = new AuditAccess({
      ...store,
      auditPage: async (query, options) => {
        reads += 1;
        if (holding) readsWhileHolding += 1;
        return store.auditPage(query, options);
      },
    });
    let text = "";
    await writeAuditExport(access.pages({}, 100), "json", {
      write: (chunk) => {
        text += chunk;
        holding = true;
        return false;
      },
      // The sink lets go of what it holds only after every promise already settled has run on.
      once: (_event, listener) =>
        setImmediate(() => {
          holding = false;
          listener();
        }),
    });
    expect(reads).toBe(11);
    expect(readsWhileHolding).toBe(0);
    expect(text).toBe(exportAudit(await store.queryAudit(AuditQuerySchema.parse({}), null), "json"));
  });
});
