import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const testing = fileURLToPath(new URL("./", import.meta.url));
const run = promisify(execFile);

/** What one thread of the process had loaded when it ended: files per package (record-loaded-packages.cjs). */
export interface ThreadRecord {
  thread: string;
  files: { pg: number; "prom-client": number; "@opentelemetry/api": number };
}

/**
 * A fresh process opens the core on a demo and scans once (`open-core-and-scan.ts`, which takes `args`);
 * each of its threads that ends by itself says what it loaded. Main and the inventory worker do; the
 * list-page reader is ended by the core and says nothing.
 */
export async function threadsOfOneScan(args: string[] = []): Promise<ThreadRecord[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "loaded-packages-"));
  const record = path.join(dir, "threads.jsonl");
  try {
    await run(
      process.execPath,
      [
        "--require",
        path.join(testing, "record-loaded-packages.cjs"),
        "--import",
        "tsx",
        path.join(testing, "open-core-and-scan.ts"),
        ...args,
      ],
      { cwd: root, env: { ...process.env, LOADED_PACKAGES_RECORD: record }, timeout: 60_000 },
    );
    const lines = (await readFile(record, "utf8")).trim().split("\n");
    return lines.map((line) => JSON.parse(line) as ThreadRecord);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
