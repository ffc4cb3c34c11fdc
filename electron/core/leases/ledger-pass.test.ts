import { writeFile } from "node:fs/promises";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environment, leaseRow, tempDir } from "../../../test/fixtures/leasekeeper.js";
import { LedgerPass } from "./ledger-pass.js";

// A ledger pass holds a lease item only while its sink takes it: the parser is asked for nothing above
// the items, or it would keep every item to hand over the whole list at its end (every row of the file
// in memory at once, however the rows are paged after).

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const ROWS = 20_000;
const WATCHED = 200;
let dir: Awaited<ReturnType<typeof tempDir>>;
let file: string;

beforeAll(async () => {
  dir = await tempDir();
  file = path.join(dir.dir, "ledger.json");
  const leases = Array.from({ length: ROWS }, (_, at) =>
    leaseRow("https://api.example.test", `sbx-${at}`, { id: `lease-${String(at).padStart(6, "0")}` }),
  );
  await writeFile(file, JSON.stringify({ environments: [environment()], leases, companies: [] }));
});

afterAll(async () => {
  await dir.cleanup();
});

describe("a ledger pass", () => {
  it("lets go of each lease item once its sink has taken it", async () => {
    const watched: WeakRef<object>[] = [];
    let handed = 0;
    const pass = new LedgerPass({
      sourceId: "ledger",
      path: file,
      sink: {
        add(item) {
          handed += 1;
          if (watched.length < WATCHED) watched.push(new WeakRef(item as object));
        },
      },
    });
    while (handed < ROWS / 2) expect(await pass.next()).toBe(true);
    // Past the job that made them, a collection may take every item no one holds.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(watched).toHaveLength(WATCHED);
    const alive = watched.filter((ref) => ref.deref() !== undefined).length;
    expect(alive).toBe(0);

    await pass.finish();
    expect(handed).toBe(ROWS);
    expect(Array.isArray(pass.environments)).toBe(true);
  });
});
