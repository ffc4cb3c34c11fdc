import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type AuditEntry, AuditQuerySchema } from "../../../shared/domain/actions.js";
import { AuditLog } from "../actions/audit/audit-log.js";
import { exportAudit } from "../actions/audit/export.js";
import { buildWorld, KEY_A, type World } from "../actions/testing/world.js";
import { openDatabase } from "../store/database.js";
import type { CliIo } from "./command.js";
import { runCli } from "./run.js";
import { runCliCaptured } from "./testing/run-captured.js";

// `leasekeeper audit --csv|--json` exports every matching entry, however many: written a page at a time
// as the log is read, in the bytes the whole export would have, with the keys in use taken out of every
// page.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const PAGE = 500;

/**
 * Copies of the plan's own audit entry written through the audit log, as a busy log holds many plans,
 * then one whose message holds a key; every entry the log then holds.
 */
function fillLog(copies: number): AuditEntry[] {
  const db = openDatabase(path.join(world!.dir, "data"));
  try {
    const log = new AuditLog(db);
    const [plan] = log.query(AuditQuerySchema.parse({}), 1);
    const { id: _, ...record } = plan!;
    const withKey = { ...record, message: `pasted from a shell: ${KEY_A}` };
    db.transaction(() => log.append([...Array.from({ length: copies }, () => record), withKey]))();
    return log.query(AuditQuerySchema.parse({}), null);
  } finally {
    db.close();
  }
}

/** The export as the terminal receives it: every write, in order. */
async function exportWrites(format: "csv" | "json"): Promise<{ code: number; writes: string[] }> {
  const writes: string[] = [];
  const code = await runCli([`audit`, `--${format}`], {
    stdout: { write: (text: string) => writes.push(text) },
    stderr: { write: () => true },
    env: world!.env,
    cwd: world!.dir,
  });
  return { code, writes };
}

describe("leasekeeper audit --csv and --json", () => {
  it("writes a log of several pages a page at a time, byte for byte the whole export, no key in any page", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const planned = await runCliCaptured(
      ["plan", "--action", "destroy", "--lease", "lease-a", "--json"],
      world,
    );
    expect(planned.code, planned.stderr).toBe(0);
    const entries = fillLog(2 * PAGE + 100);
    expect(entries).toHaveLength(2 * PAGE + 102);

    const csv = await exportWrites("csv");
    expect(csv.code).toBe(0);
    const keyTakenOut = exportAudit(entries, "csv").split(KEY_A).join("[redacted]");
    expect(csv.writes.join("")).toBe(keyTakenOut);
    expect(csv.writes.join("")).not.toContain(KEY_A);
    // The header, then three pages: no write holds more than a page of records.
    expect(csv.writes.map((text) => text.split("\r\n").length - 1)).toEqual([1, PAGE, PAGE, 102]);

    const json = await exportWrites("json");
    expect(json.code).toBe(0);
    expect(json.writes.join("")).toBe(exportAudit(entries, "json").split(KEY_A).join("[redacted]"));
    expect(json.writes).toHaveLength(5);

    // A pipe slower than the log is read: each page waits until the pipe has taken the one before.
    const received: string[] = [];
    const pipe = new Writable({
      highWaterMark: 1,
      write(chunk, _encoding, done) {
        received.push(String(chunk));
        setImmediate(done);
      },
    });
    const heldAtEachWrite: number[] = [];
    const slow = await runCli(["audit", "--csv"], {
      stdout: {
        write: (text: string) => {
          heldAtEachWrite.push(pipe.writableLength);
          return pipe.write(text);
        },
        once: (event: "drain", listener: () => void) => pipe.once(event, listener),
      } as CliIo["stdout"],
      stderr: { write: () => true },
      env: world.env,
      cwd: world.dir,
    });
    expect(slow).toBe(0);
    expect(heldAtEachWrite).toEqual([0, 0, 0, 0]);
    await new Promise((resolve) => pipe.end(resolve));
    expect(received.join("")).toBe(keyTakenOut);
  }, 60_000);
});
