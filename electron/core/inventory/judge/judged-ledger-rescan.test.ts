import { hash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Inventory, SourceSnapshot } from "../../../../shared/domain/inventory.js";
import type { ReconcileInput } from "../../../../shared/domain/reconcile.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { LedgerSource } from "../../leases/ledger.js";
import type { SourceRead } from "../../leases/source-read.js";
import { openDatabase } from "../../store/database.js";
import { InventoryScanWrite } from "../../store/inventory-rows/scan-write.js";
import type { Database } from "../../store/sqlite/migrations/index.js";
import { storedWhole as stored } from "../../store/testing/stored-whole.js";
import { LeasekeeperActions } from "../leasekeeper-actions.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import { applyChange, type Change, change } from "../testing/world-changes.js";
import { judgeScan } from "./judged-scan.js";
import { ScanMemory } from "./scan-memory.js";

const digest = (text: string) => hash("sha1", text, "base64");

/** A change to the ledger file's items themselves, beside those Paperclip and CreateOS make. */
type FileChange =
  | { kind: "item-broken"; at: number }
  | { kind: "item-fixed"; at: number }
  | { kind: "item-moved"; at: number; to: number }
  | { kind: "id-repeated"; at: number; of: number }
  | { kind: "id-changed"; at: number }
  | { kind: "item-added"; at: number }
  | { kind: "environment-broken"; at: number };

const fileChange: fc.Arbitrary<FileChange> = fc.oneof(
  fc.record({ kind: fc.constant("item-broken" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("item-fixed" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("item-moved" as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant("id-repeated" as const), at: fc.nat(), of: fc.nat() }),
  fc.record({ kind: fc.constant("id-changed" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("item-added" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("environment-broken" as const), at: fc.nat() }),
);

/** The world with its ledger's items changed by `step`: items that are no rows are written as they are. */
function applyFileChange(input: ReconcileInput, step: FileChange): ReconcileInput {
  const [ledger] = input.snapshots as [SourceSnapshot];
  const leases: unknown[] = [...ledger.leases];
  const environments: unknown[] = [...ledger.environments];
  const at = step.at % Math.max(1, leases.length);
  const item = leases[at] as Record<string, unknown> | undefined;
  switch (step.kind) {
    case "item-broken":
      if (item) leases[at] = { ...item, id: 7, status: ["not", "a", "status"] };
      break;
    case "item-fixed":
      if (item) leases[at] = { ...item, id: `fixed-${step.at}`, status: "active" };
      break;
    case "item-moved": {
      const [moved] = leases.splice(at, 1);
      if (moved !== undefined) leases.splice(step.to % (leases.length + 1), 0, moved);
      break;
    }
    case "id-repeated": {
      const other = leases[step.of % Math.max(1, leases.length)] as { id?: unknown } | undefined;
      if (item && other) leases[at] = { ...item, id: other.id };
      break;
    }
    case "id-changed":
      if (item) leases[at] = { ...item, id: `renamed-${step.at}` };
      break;
    case "item-added":
      if (item) leases.splice(at, 0, { ...item, id: `added-${step.at}` });
      break;
    case "environment-broken": {
      const index = step.at % Math.max(1, environments.length);
      environments[index] = { id: (environments[index] as { id?: unknown } | undefined)?.id, name: 5 };
      break;
    }
  }
  return {
    ...input,
    snapshots: [{ ...ledger, leases: leases as SourceSnapshot["leases"], environments } as SourceSnapshot],
  };
}

interface Scanner {
  db: Database;
  memory: ScanMemory;
  salt: string;
}

/** What one scan's read handed over. */
interface Handed {
  scope: SourceRead["scope"];
  rows: number;
}

/** The ledger file of a world, compact as a program writes it or pretty as a person might. */
async function writeLedger(file: string, input: ReconcileInput, pretty = false): Promise<void> {
  const [ledger] = input.snapshots as [SourceSnapshot];
  const content = { environments: ledger.environments, leases: ledger.leases, companies: ledger.companies };
  await writeFile(file, pretty ? JSON.stringify(content, null, 2) : JSON.stringify(content));
}

/** One scan of the ledger file judged into the store, handed what the last read left when there is one. */
async function scan(scanner: Scanner, file: string, input: ReconcileInput): Promise<Handed> {
  const source = new LedgerSource({ id: "ledger", path: file });
  const lastItems = scanner.memory.lastItems("ledger", "ledger");
  const read = await source.read(lastItems === undefined ? {} : { lastItems });
  const handed: Handed = { scope: read.scope, rows: 0 };
  const counted: SourceRead = {
    ...read,
    sourceId: read.sourceId,
    environments: read.environments,
    companies: read.companies,
    scope: read.scope,
    order: read.order,
    async *pages() {
      for await (const page of read.pages()) {
        handed.rows += page.length;
        yield page;
      }
    },
    end: () => read.end(),
    cancel: () => read.cancel(),
  };
  const rows = InventoryScanWrite.begin(scanner.db, ["ledger"]);
  const judged = await judgeScan({
    rows,
    sources: [{ read: counted, identity: "ledger", startedAt: 0 }],
    listings: input.listings,
    requests: input.requests,
    now: input.now,
    marks: new LeasekeeperActions(),
    memory: scanner.memory,
    salt: scanner.salt,
    digest,
  });
  rows.flip(judged);
  judged.remember();
  return handed;
}

describe("a ledger rescanned by the bytes of its items", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const scanner = (name: string, salt = "these rules, no keys"): Scanner => ({
    db: openDatabase(`${dir}/${name}`),
    memory: new ScanMemory(),
    salt,
  });

  /** What a scan of the same file and listings gives in a store that has never seen it. */
  const cold = async (file: string, input: ReconcileInput, salt: string): Promise<Inventory> => {
    const fresh = scanner(`cold-${Math.random().toString(36).slice(2)}`, salt);
    const handed = await scan(fresh, file, input);
    expect(handed.scope).toBe("whole");
    const inventory = stored(fresh.db);
    fresh.db.close();
    return inventory;
  };

  it("gives what a cold scan gives after any run of changes to the world and to the file's items", async () => {
    const scopes = { whole: 0, changed: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("alpha", "beta", "gamma"),
        fc.array(
          fc.record({
            changes: fc.array(fc.oneof(change, fileChange), { minLength: 1, maxLength: 4 }),
            // The file written again by another hand, every item's bytes other than before.
            pretty: fc.boolean(),
            // The process started again: it remembers nothing but the store; or it judges under other
            // keys, which forgets what it remembered.
            restart: fc.constantFrom("no", "no", "forgetting", "another salt"),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (seed, scans) => {
          const file = `${dir}/ledger-${Math.random().toString(36).slice(2)}.json`;
          let run = scanner(`run-${Math.random().toString(36).slice(2)}`);
          let world: ReconcileInput = generatedWorldInput({ size: 200, seed, environments: 5, accounts: 2 });
          await writeLedger(file, world);
          await scan(run, file, world);
          expect(stored(run.db)).toEqual(await cold(file, world, run.salt));
          for (const { changes, pretty, restart } of scans) {
            if (restart !== "no")
              run = {
                db: run.db,
                memory: new ScanMemory(),
                salt: restart === "another salt" ? `${run.salt}, another` : run.salt,
              };
            for (const step of changes as (Change | FileChange)[])
              world =
                step.kind in FILE_CHANGES
                  ? applyFileChange(world, step as FileChange)
                  : applyChange(world, step as Change);
            await writeLedger(file, world, pretty);
            scopes[(await scan(run, file, world)).scope] += 1;
            expect(stored(run.db)).toEqual(await cold(file, world, run.salt));
          }
          run.db.close();
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 25) },
    );
    // Both ways were taken: rescans of changed items only, and whole reads of files changed otherwise.
    expect(scopes.changed).toBeGreaterThan(0);
    expect(scopes.whole).toBeGreaterThan(0);
  }, 300_000);

  it("hands over only the item whose bytes changed, of a thousand", async () => {
    const file = `${dir}/ledger.json`;
    let world: ReconcileInput = generatedWorldInput({
      size: 1000,
      seed: "one-item",
      environments: 6,
      accounts: 2,
    });
    const run = scanner("one-item");
    await writeLedger(file, world);
    const first = await scan(run, file, world);
    expect(first).toEqual({ scope: "whole", rows: world.snapshots[0]!.leases.length });
    expect(await scan(run, file, world)).toEqual({ scope: "changed", rows: 0 });
    const status = world.snapshots[0]!.leases[417]!.status === "retained" ? "expired" : "retained";
    world = applyChange(world, { kind: "row-status", at: 417, status });
    await writeLedger(file, world);
    expect(await scan(run, file, world)).toEqual({ scope: "changed", rows: 1 });
    expect(stored(run.db)).toEqual(await cold(file, world, run.salt));
    run.db.close();
  });

  it("reads a file cut short as a cold read does, and whole once it is mended", async () => {
    const file = `${dir}/ledger.json`;
    const world = generatedWorldInput({ size: 300, seed: "cut", environments: 4, accounts: 2 });
    const run = scanner("cut");
    await writeLedger(file, world);
    await scan(run, file, world);
    const whole = JSON.stringify({
      environments: world.snapshots[0]!.environments,
      leases: world.snapshots[0]!.leases,
    });
    await writeFile(file, whole.slice(0, Math.floor(whole.length / 2)));
    const lastItems = run.memory.lastItems("ledger", "ledger");
    expect(lastItems).toBeDefined();
    const source = new LedgerSource({ id: "ledger", path: file });
    const failure = async (read: Promise<SourceRead>) => {
      try {
        for await (const _ of (await read).pages());
      } catch (error) {
        return error;
      }
      throw new Error("a file cut short was read");
    };
    const rescanned = await failure(source.read({ lastItems: lastItems! }));
    expect(rescanned).toEqual(await failure(source.read()));
    expect(String(rescanned)).toContain("ledger");
    await writeLedger(file, world);
    expect(await scan(run, file, world)).toEqual({ scope: "changed", rows: 0 });
    run.db.close();
  });
});

const FILE_CHANGES: Record<FileChange["kind"], true> = {
  "item-broken": true,
  "item-fixed": true,
  "item-moved": true,
  "id-repeated": true,
  "id-changed": true,
  "item-added": true,
  "environment-broken": true,
};
