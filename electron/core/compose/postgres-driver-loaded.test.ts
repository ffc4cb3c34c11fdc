import { describe, expect, it } from "vitest";
import { threadsOfOneScan } from "./testing/threads-of-one-scan.js";

// The `pg` driver took 100–150 ms of a start on main and again on the inventory worker, loaded at the
// top of both whatever the config named. A core that reads no Paperclip database and shares no store
// (the demo) must not load it; a configured database source still does, where it reads.

describe("the PostgreSQL driver", () => {
  it("is loaded by no thread of a core that scans the demo", async () => {
    const threads = await threadsOfOneScan();
    // Main and the inventory worker, which ends by itself when the core closes.
    expect(threads.map((record) => record.thread)).toEqual([expect.stringMatching(/^worker /), "main"]);
    expect(
      threads.map(({ thread, files }) => ({ thread, driverFiles: files.pg })),
      "a thread loaded pg though nothing configured uses PostgreSQL",
    ).toEqual(threads.map(({ thread }) => ({ thread, driverFiles: 0 })));
  }, 90_000);

  it("is loaded by the inventory worker when a Paperclip database source is read", async () => {
    const threads = await threadsOfOneScan(["--with-database-source"]);
    const worker = threads.find((record) => record.thread.startsWith("worker "));
    expect(worker?.files.pg).toBeGreaterThan(0);
  }, 90_000);
});
