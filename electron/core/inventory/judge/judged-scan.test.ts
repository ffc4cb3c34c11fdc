import { hash } from "node:crypto";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Inventory, ProviderSandbox, SourceSnapshot } from "../../../../shared/domain/inventory.js";
import type { LeaseRow } from "../../../../shared/domain/paperclip.js";
import { type ReconcileInput, reconcile } from "../../../../shared/domain/reconcile.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { snapshotRead } from "../../leases/testing/snapshot-read.js";
import { openDatabase } from "../../store/database.js";
import { keepScanMemory, readKeptScanMemory } from "../../store/inventory-rows/kept-scan-memory.js";
import { InventoryScanWrite } from "../../store/inventory-rows/scan-write.js";
import type { Database } from "../../store/sqlite/migrations/index.js";
import { storedWhole as stored } from "../../store/testing/stored-whole.js";
import { LeasekeeperActions } from "../leasekeeper-actions.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import { applyChange, type Change, change } from "../testing/world-changes.js";
import { judgeScan } from "./judged-scan.js";
import type { KeptScanMemory } from "./ports.js";
import { ScanMemory } from "./scan-memory.js";

const digest = (text: string) => hash("sha1", text, "base64");
const HOUR = 3_600_000;

/**
 * A generated world's rows split between two sources: a ledger read whole every time, in its order, and
 * a database ordered by lease id that can hand over only the rows changed since its last read. A third
 * of the rows, chosen by id, are the database's; both list every environment.
 */
function twoSources(input: ReconcileInput): ReconcileInput {
  const [whole] = input.snapshots as [SourceSnapshot];
  const inDatabase = (row: LeaseRow) => digest(row.id).charCodeAt(0) % 3 === 0;
  const database: SourceSnapshot = {
    ...whole,
    sourceId: "database",
    leases: whole.leases.filter(inDatabase).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    problems: [],
  };
  return {
    ...input,
    snapshots: [{ ...whole, leases: whole.leases.filter((row) => !inDatabase(row)) }, database],
  };
}

/** The database's rows that differ from its last read, and the ids it no longer has. */
function changedSince(before: SourceSnapshot, now: SourceSnapshot): { rows: LeaseRow[]; left: string[] } {
  const earlier = new Map(before.leases.map((row) => [row.id, JSON.stringify(row)]));
  const ids = new Set(now.leases.map((row) => row.id));
  return {
    rows: now.leases.filter((row) => earlier.get(row.id) !== JSON.stringify(row)),
    left: [...earlier.keys()].filter((id) => !ids.has(id)),
  };
}

interface Scanner {
  db: Database;
  memory: ScanMemory;
  /** The salt of the rules and keys it judges under (`judgingSalt`). */
  salt: string;
  /** The database source's last read, for the next read of what changed. */
  lastDatabase: SourceSnapshot | null;
  /** The marks of Leasekeeper's jobs this process holds. */
  marks: LeasekeeperActions;
}

/** The sources' identities, as a keeper draws them from their configuration. */
const IDENTITIES = new Map([
  ["ledger", "ledger"],
  ["database", "database"],
]);
const keyedBy = (salt: string) => (identity: string) => digest(`${salt}\u0000${identity}`);

/** Keeps the scanner's memory in its store beside the scan flipped as `generation`, as a keeper does. */
function keepMemory(scanner: Scanner, generation: number): void {
  const kept = scanner.memory.toKeep(generation, {
    salt: digest(scanner.salt),
    keyed: keyedBy(scanner.salt),
    digest,
    marked: scanner.marks.marked(),
  });
  if (kept === null) throw new Error("a scan that went through left no memory to keep");
  keepScanMemory(scanner.db, kept.memory, kept.listing);
  scanner.memory.kept(generation);
}

/** One scan of `input` judged into the store, the database read by what changed where it can be. */
async function scan(
  scanner: Scanner,
  input: ReconcileInput,
  options: {
    pageSize?: number;
    touchedLimit?: number;
    /** Told each list of sandboxes the scan asks the store whether some row names. */
    asking?: (sandboxIds: readonly string[]) => void;
  } = {},
) {
  const [ledger, database] = input.snapshots as [SourceSnapshot, SourceSnapshot];
  const rows = InventoryScanWrite.begin(scanner.db, ["ledger", "database"]);
  const { asking } = options;
  if (asking !== undefined) {
    const namedAmong = rows.namedAmong.bind(rows);
    rows.namedAmong = (sandboxIds) => {
      asking(sandboxIds);
      return namedAmong(sandboxIds);
    };
  }
  const changed =
    scanner.lastDatabase === null || scanner.memory.listing === null
      ? undefined
      : changedSince(scanner.lastDatabase, database);
  const judged = await judgeScan({
    rows,
    sources: [
      { read: snapshotRead(ledger, { pageSize: options.pageSize ?? 37 }), identity: "ledger", startedAt: 0 },
      {
        read: snapshotRead(database, { pageSize: 29, order: "by-id", ...(changed ? { changed } : {}) }),
        identity: "database",
        startedAt: 0,
      },
    ],
    listings: input.listings,
    requests: input.requests,
    now: input.now,
    marks: scanner.marks,
    memory: scanner.memory,
    salt: scanner.salt,
    digest,
    ...(options.touchedLimit === undefined ? {} : { touchedLimit: options.touchedLimit }),
  });
  const flipped = rows.flip(judged);
  judged.remember();
  keepMemory(scanner, flipped.stored.generation);
  scanner.lastDatabase = database;
  return judged.rows;
}

/** The world's listings with each listing that went well listing `edit` of its sandboxes instead. */
function listedAs(
  input: ReconcileInput,
  edit: (sandboxes: ProviderSandbox[]) => ProviderSandbox[],
): ReconcileInput["listings"] {
  return input.listings.map((listing) =>
    listing.outcome.ok
      ? { ...listing, outcome: { ...listing.outcome, sandboxes: edit(listing.outcome.sandboxes) } }
      : listing,
  );
}

/** What a cold scan of the same inputs gives. */
function cold(input: ReconcileInput): Inventory {
  return reconcile(input);
}

describe("a scan judged into the store as it streams", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const scanner = (name: string): Scanner => ({
    db: openDatabase(`${dir}/${name}`),
    memory: new ScanMemory(),
    salt: "these rules, no keys",
    lastDatabase: null,
    marks: new LeasekeeperActions(),
  });

  /**
   * The same store scanned by a process started again, under the same salt or another: with `kept`, it
   * takes the memory the last scan kept in the store (the database then hands over what changed since
   * the last read); without, it remembers nothing but the rows.
   */
  const restarted = (run: Scanner, { salt = run.salt, kept = false } = {}): Scanner => {
    const memory = new ScanMemory();
    if (kept) {
      const stored = readKeptScanMemory<KeptScanMemory>(run.db);
      if (stored === null) throw new Error("the store keeps no memory of its last scan");
      expect(stored.memory.salt).toBe(digest(salt));
      memory.restore(stored, IDENTITIES, keyedBy(salt));
    }
    return {
      db: run.db,
      memory,
      salt,
      lastDatabase: kept ? run.lastDatabase : null,
      marks: new LeasekeeperActions(),
    };
  };

  it("leaves in the store exactly the inventory a cold scan of the same world gives", async () => {
    const input = twoSources(
      generatedWorldInput({ size: 1200, seed: "streamed", environments: 8, accounts: 2 }),
    );
    const one = scanner("one");
    const counts = await scan(one, input);
    expect(stored(one.db)).toEqual(cold(input));
    expect(counts.judged).toBeGreaterThanOrEqual(1200);
    expect(counts.kept).toBe(0);
    one.db.close();
  });

  it("gives what a cold scan gives after any run of changes, judging only what changed, over generated worlds", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("alpha", "beta", "gamma"),
        fc.array(
          fc.record({
            changes: fc.array(change, { minLength: 1, maxLength: 4 }),
            // The process started again before this scan: it remembers nothing but the store, or takes
            // the memory the last scan kept there.
            restart: fc.constantFrom("no", "forgetting", "from the store"),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        // A scan that touched more sandboxes than it lists finds the rows to judge together in the store.
        fc.constantFrom(undefined, 3),
        async (seed, scans, touchedLimit) => {
          let run = scanner(`run-${Math.random().toString(36).slice(2)}`);
          let world: ReconcileInput = generatedWorldInput({ size: 300, seed, environments: 5, accounts: 2 });
          await scan(run, twoSources(world), { touchedLimit });
          expect(stored(run.db)).toEqual(cold(twoSources(world)));
          for (const { changes, restart } of scans) {
            if (restart !== "no") run = restarted(run, { kept: restart === "from the store" });
            for (const step of changes as Change[]) world = applyChange(world, step);
            const input = twoSources(world);
            await scan(run, input, { touchedLimit });
            expect(stored(run.db)).toEqual(cold(input));
          }
          run.db.close();
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 25) },
    );
    // Each run scans a generated world several times over: seconds on a loaded machine, not a timing.
  }, 300_000);

  it("keeps the new place of a row judged again with the rows on its sandbox after a row before it went", async () => {
    // Found by the property above: the rows judged together were read at their stored place, and the
    // write put back the place the removal had moved them from.
    let world: ReconcileInput = generatedWorldInput({
      size: 300,
      seed: "alpha",
      environments: 5,
      accounts: 2,
    });
    const run = scanner("moved");
    await scan(run, twoSources(world));
    for (const step of [
      { kind: "row-removed", at: 317670271 },
      { kind: "row-copied", at: 877528503 },
    ] as Change[])
      world = applyChange(world, step);
    await scan(run, twoSources(world));
    expect(stored(run.db)).toEqual(cold(twoSources(world)));
    run.db.close();
  });

  it("judges only the row that changed, and the rows whose moment the clock passed", async () => {
    const world = generatedWorldInput({ size: 600, seed: "one-row", environments: 6, accounts: 2 });
    const run = scanner("one-row");
    const first = twoSources(world);
    await scan(run, first);
    // Nothing changed: nothing judged.
    const again = await scan(run, first);
    expect(again).toEqual({ judged: 0, kept: first.snapshots[0]!.leases.length });

    // One database row changed: the database hands over that row alone, and it alone is judged.
    const database = first.snapshots[1]!;
    const at = database.leases.findIndex((row) => row.status === "released");
    const changed: ReconcileInput = {
      ...first,
      snapshots: [
        first.snapshots[0]!,
        {
          ...database,
          leases: database.leases.map((row, n) => (n === at ? { ...row, status: "expired" } : row)),
        },
      ],
    };
    expect(await scan(run, changed)).toEqual({ judged: 1, kept: first.snapshots[0]!.leases.length });
    expect(stored(run.db)).toEqual(cold(changed));

    // The clock moves six hours: the rows whose recorded moments it passed are judged, and only those.
    const later: ReconcileInput = { ...changed, now: new Date(changed.now.getTime() + 6 * HOUR) };
    const rescanned = await scan(run, later);
    expect(stored(run.db)).toEqual(cold(later));
    expect(rescanned.judged).toBeGreaterThan(0);
    expect(rescanned.judged).toBeLessThan(world.snapshots[0]!.leases.length / 4);
    run.db.close();
  });

  it("asks the store which listed sandboxes a row names only for those whose answer may have changed", async () => {
    const world = twoSources(generatedWorldInput({ size: 600, seed: "named", environments: 6, accounts: 2 }));
    const run = scanner("named");
    const asked: string[] = [];
    const asking = (sandboxIds: readonly string[]) => asked.push(...sandboxIds);
    await scan(run, world, { asking });
    const live = asked.length;
    expect(live).toBeGreaterThan(100);

    // A sandbox appears that no row names, and a row naming a listed sandbox goes.
    const ledger = world.snapshots[0]!;
    const gone = ledger.leases.find((row) =>
      world.listings.some(
        (listing) =>
          listing.outcome.ok &&
          listing.outcome.sandboxes.some(
            (sandbox) => sandbox.id === row.providerLeaseId && sandbox.status === "running",
          ),
      ),
    );
    if (gone === undefined) throw new Error("the world has no row naming a running sandbox");
    const changed: ReconcileInput = {
      ...world,
      snapshots: [{ ...ledger, leases: ledger.leases.filter((row) => row !== gone) }, world.snapshots[1]!],
      listings: listedAs(world, (sandboxes) => [
        ...sandboxes,
        { id: "sb-appeared", status: "running", shape: "s-1vcpu-2gb" },
      ]),
    };
    asked.length = 0;
    await scan(run, changed, { asking });
    expect(stored(run.db)).toEqual(cold(changed));
    expect(stored(run.db).untracked.map((sandbox) => sandbox.sandboxId)).toContain("sb-appeared");
    expect(asked).toContain("sb-appeared");
    expect(asked).toContain(gone.providerLeaseId);
    expect(asked.length).toBeLessThan(live / 4);

    // After a restart the process holds no earlier answer: it asks about every one, once.
    const again = restarted(run, { kept: true });
    asked.length = 0;
    await scan(again, changed, { asking });
    expect(stored(again.db)).toEqual(cold(changed));
    expect(asked.length).toBeGreaterThanOrEqual(live);
    run.db.close();
  });

  it("finds untracked a sandbox that a second listing of its origin shows alive where it showed it ended", async () => {
    const world = twoSources(generatedWorldInput({ size: 300, seed: "twice", environments: 5, accounts: 2 }));
    const [first, second] = world.listings
      .map((listing, at) => ({ listing, at }))
      .filter(({ listing }) => listing.outcome.ok && listing.origin === world.listings[0]!.origin);
    if (first === undefined || second === undefined || first.listing.credential === second.listing.credential)
      throw new Error("the world has no origin that two credentials list");
    // The origin's listings index the first entry of a sandbox: the second credential's is not compared.
    const withTwice = (secondStatus: string): ReconcileInput => ({
      ...world,
      listings: world.listings.map((listing, at) =>
        listing.outcome.ok && (at === first.at || at === second.at)
          ? {
              ...listing,
              outcome: {
                ...listing.outcome,
                sandboxes: [
                  ...listing.outcome.sandboxes,
                  {
                    id: "sb-twice",
                    status: at === first.at ? "destroyed" : secondStatus,
                    shape: "s-1vcpu-2gb",
                  },
                ],
              },
            }
          : listing,
      ),
    });
    const run = scanner("twice");
    await scan(run, withTwice("destroyed"));
    expect(stored(run.db).untracked.map((sandbox) => sandbox.sandboxId)).not.toContain("sb-twice");
    const alive = withTwice("running");
    await scan(run, alive);
    expect(stored(run.db)).toEqual(cold(alive));
    expect(stored(run.db).untracked.map((sandbox) => sandbox.sandboxId)).toContain("sb-twice");
    run.db.close();
  });

  it("after a restart under the same rules and keys, judges only what changed; under others, every row", async () => {
    const world = generatedWorldInput({ size: 600, seed: "restart", environments: 6, accounts: 2 });
    const first = twoSources(world);
    const rowCount = first.snapshots.reduce((sum, snapshot) => sum + snapshot.leases.length, 0);
    const before = scanner("restart");
    expect((await scan(before, first)).judged).toBeGreaterThanOrEqual(rowCount);

    // Started again with nothing changed: every source is read whole, and every row stands as stored.
    const again = restarted(before);
    expect(await scan(again, first)).toEqual({ judged: 0, kept: rowCount });
    expect(stored(again.db)).toEqual(cold(first));

    // Started again after one row changed: that row alone is judged.
    const ledger = first.snapshots[0]!;
    const at = ledger.leases.findIndex((row) => row.status === "released");
    const changed: ReconcileInput = {
      ...first,
      snapshots: [
        {
          ...ledger,
          leases: ledger.leases.map((row, n) => (n === at ? { ...row, status: "expired" } : row)),
        },
        first.snapshots[1]!,
      ],
    };
    const third = restarted(again);
    expect(await scan(third, changed)).toEqual({ judged: 1, kept: rowCount - 1 });
    expect(stored(third.db)).toEqual(cold(changed));

    // Other rules or other keys: every row is judged again, whatever the store holds.
    const upgraded = restarted(third, { salt: "newer rules, no keys" });
    const rejudged = await scan(upgraded, changed);
    expect(rejudged.kept).toBe(0);
    // Rows that share a sandbox are judged once more, together.
    expect(rejudged.judged).toBeGreaterThanOrEqual(rowCount);
    expect(stored(upgraded.db)).toEqual(cold(changed));
    before.db.close();
  });

  it("after a restart that takes the memory its last scan kept, reads and judges only what changed", async () => {
    const world = generatedWorldInput({ size: 600, seed: "kept-memory", environments: 6, accounts: 2 });
    const first = twoSources(world);
    const [ledger, database] = first.snapshots as [SourceSnapshot, SourceSnapshot];
    const before = scanner("kept-memory");
    await scan(before, first);

    // Started again with nothing changed: the database hands over nothing, and nothing is judged.
    const again = restarted(before, { kept: true });
    expect(await scan(again, first)).toEqual({ judged: 0, kept: ledger.leases.length });
    expect(stored(again.db)).toEqual(cold(first));

    // Started again after one database row changed: that row alone is handed over and judged.
    const at = database.leases.findIndex((row) => row.status === "released");
    const changed: ReconcileInput = {
      ...first,
      snapshots: [
        ledger,
        {
          ...database,
          leases: database.leases.map((row, n) => (n === at ? { ...row, status: "expired" } : row)),
        },
      ],
    };
    const third = restarted(again, { kept: true });
    expect(await scan(third, changed)).toEqual({ judged: 1, kept: ledger.leases.length });
    expect(stored(third.db)).toEqual(cold(changed));

    // A sandbox that went from the listing since: the rows naming it are judged again, and only they.
    const gone = cold(changed).leases.find(
      (row) => row.sourceId === "database" && row.provider.sandbox !== null && row.sharedWith.length === 0,
    )!;
    const sandboxId = gone.provider.sandbox!.id;
    const without: ReconcileInput = {
      ...changed,
      listings: listedAs(changed, (sandboxes) => sandboxes.filter((sandbox) => sandbox.id !== sandboxId)),
    };
    const fourth = restarted(third, { kept: true });
    const counts = await scan(fourth, without);
    expect(stored(fourth.db)).toEqual(cold(without));
    expect(counts.judged).toBeGreaterThanOrEqual(1);
    expect(counts.judged).toBeLessThan(ledger.leases.length / 10);

    // A sandbox whose entry changed (paused since): told by its entry's digest, the only thing kept of it.
    const pausedRow = cold(without).leases.find(
      (row) =>
        row.sourceId === "database" &&
        row.provider.sandbox?.status === "running" &&
        row.sharedWith.length === 0,
    )!;
    const pausedId = pausedRow.provider.sandbox!.id;
    const paused: ReconcileInput = {
      ...without,
      listings: listedAs(without, (sandboxes) =>
        sandboxes.map((sandbox) => (sandbox.id === pausedId ? { ...sandbox, status: "paused" } : sandbox)),
      ),
    };
    const fifth = restarted(fourth, { kept: true });
    const afterPause = await scan(fifth, paused);
    const rowNow = stored(fifth.db).leases.find((row) => row.lease.id === pausedRow.lease.id)!;
    expect(rowNow.provider.sandbox?.status).toBe("paused");
    expect(stored(fifth.db)).toEqual(cold(paused));
    expect(afterPause.judged).toBeLessThan(ledger.leases.length / 10);
    before.db.close();
  });

  it("after a restart, judges again the rows a job's mark was applied to: the process holds no marks", async () => {
    const world = generatedWorldInput({ size: 600, seed: "kept-marks", environments: 6, accounts: 2 });
    const first = twoSources(world);
    const run = scanner("kept-marks");
    await scan(run, first);

    // A job destroyed a sandbox a database row names; the next scan no longer lists it, and judges
    // the rows naming it with the job's mark.
    const marked = cold(first).leases.find(
      (row) =>
        row.sourceId === "database" &&
        row.provider.sandbox !== null &&
        row.provider.origin !== null &&
        row.sharedWith.length === 0,
    )!;
    const sandboxId = marked.provider.sandbox!.id;
    run.marks.note(marked.provider.origin!, sandboxId, {
      action: "destroy",
      effect: "delete",
      jobId: "job-kept-marks",
      at: first.now.toISOString(),
      operator: "Ada (ada)",
    });
    const destroyed: ReconcileInput = {
      ...first,
      listings: listedAs(first, (sandboxes) => sandboxes.filter((sandbox) => sandbox.id !== sandboxId)),
    };
    await scan(run, destroyed);
    const withMark = stored(run.db).leases.find((row) => row.lease.id === marked.lease.id)!;
    expect(withMark.provider.actedOnBy?.jobId).toBe("job-kept-marks");
    expect(stored(run.db)).not.toEqual(cold(destroyed));

    // Started again: no mark is held, and the row reads as a cold scan reads it.
    const again = restarted(run, { kept: true });
    const counts = await scan(again, destroyed);
    expect(stored(again.db)).toEqual(cold(destroyed));
    expect(counts.judged).toBeGreaterThanOrEqual(1);
    expect(counts.judged).toBeLessThan(first.snapshots[0]!.leases.length / 10);
    run.db.close();
  });

  it("fails part-way and leaves the previous inventory whole", async () => {
    const world = twoSources(
      generatedWorldInput({ size: 400, seed: "broken", environments: 4, accounts: 2 }),
    );
    const run = scanner("broken");
    await scan(run, world);
    const before = stored(run.db);
    const [ledger, database] = world.snapshots as [SourceSnapshot, SourceSnapshot];
    const rows = InventoryScanWrite.begin(run.db, ["ledger", "database"]);
    const breaking = snapshotRead(
      { ...ledger, leases: ledger.leases.map((row) => ({ ...row, status: "failed" })) },
      { pageSize: 10 },
    );
    const pages = breaking.pages();
    const broken = {
      ...breaking,
      sourceId: breaking.sourceId,
      environments: breaking.environments,
      companies: breaking.companies,
      scope: breaking.scope,
      order: breaking.order,
      end: () => breaking.end(),
      cancel: () => breaking.cancel(),
      async *pages() {
        let taken = 0;
        for await (const page of pages) {
          yield page;
          if (++taken === 3) throw new Error("the ledger file stops in the middle of a value");
        }
      },
    };
    await expect(
      judgeScan({
        rows,
        sources: [
          { read: broken, identity: "ledger", startedAt: 0 },
          { read: snapshotRead(database, { order: "by-id" }), identity: "database", startedAt: 0 },
        ],
        listings: world.listings,
        requests: world.requests,
        now: world.now,
        marks: new LeasekeeperActions(),
        memory: run.memory,
        salt: run.salt,
        digest,
      }),
    ).rejects.toThrow(/middle of a value/);
    rows.abandon();
    expect(stored(run.db)).toEqual(before);
    run.db.close();
  });
});
