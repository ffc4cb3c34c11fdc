import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The `pg` driver took 100–150 ms of a start on main and again on the inventory worker, loaded at the
// top of both whatever the config named. A core that reads no Paperclip database and shares no store
// (the demo) must not load it; a configured database source still does, where it reads.

const root = fileURLToPath(new URL("../../../", import.meta.url));
const testing = fileURLToPath(new URL("./testing/", import.meta.url));
const run = promisify(execFile);

interface ThreadRecord {
  thread: string;
  driverFiles: number;
}

/** A fresh process opens the core on a demo and scans once; each of its threads says what it loaded. */
async function threadsOfOneScan(args: string[] = []): Promise<ThreadRecord[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "postgres-driver-"));
  const record = path.join(dir, "threads.jsonl");
  try {
    await run(
      process.execPath,
      [
        "--require",
        path.join(testing, "record-postgres-driver.cjs"),
        "--import",
        "tsx",
        path.join(testing, "open-core-and-scan.ts"),
        ...args,
      ],
      { cwd: root, env: { ...process.env, POSTGRES_DRIVER_RECORD: record }, timeout: 60_000 },
    );
    const lines = (await readFile(record, "utf8")).trim().split("\n");
    return lines.map((line) => JSON.parse(line) as ThreadRecord);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("the PostgreSQL driver", () => {
  it("is loaded by no thread of a core that scans the demo", async () => {
    const threads = await threadsOfOneScan();
    // Main and the inventory worker, which ends by itself when the core closes.
    expect(threads.map((record) => record.thread)).toEqual([expect.stringMatching(/^worker /), "main"]);
    expect(threads, "a thread loaded pg though nothing configured uses PostgreSQL").toEqual(
      threads.map((record) => ({ ...record, driverFiles: 0 })),
    );
  }, 90_000);

  it("is loaded by the inventory worker when a Paperclip database source is read", async () => {
    const threads = await threadsOfOneScan(["--with-database-source"]);
    const worker = threads.find((record) => record.thread.startsWith("worker "));
    expect(worker?.driverFiles).toBeGreaterThan(0);
  }, 90_000);
});
