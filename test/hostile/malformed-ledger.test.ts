import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryLogger } from "../../electron/core/app/log.js";
import { type Core, openCore } from "../../electron/core/compose/index.js";
import { LedgerSource } from "../../electron/core/leases/index.js";
import {
  decodeInventoryRows,
  type InventoryView,
  MAX_PROBLEMS_IN_VIEW,
} from "../../shared/contract/index.js";
import { writeFigures } from "../chaos/support/figures.js";
import { seededRandom } from "../chaos/support/size.js";
import { HOSTILE_STRINGS } from "./corpus.js";
import { ownKeys } from "./support/hostile-world.js";

// A ledger file with 10,000 malformed rows among good ones ("a malformed ledger row is reported
// with its index and skipped, never crashes the inventory"). The source loads exactly the good rows and
// lists exactly the bad ones, each with its index and a message that names the field, never its content;
// the console's inventory carries the count and the first problems, and still shows every good row.

const BAD = 10_000;
const GOOD = 400;
const CANARY = "CANARY-CONTENT-9f2c";

function goodRow(n: number): Record<string, unknown> {
  return {
    id: `good-${n}`,
    companyId: "company-1",
    environmentId: "env-1",
    status: "released",
    provider: "createos",
    providerLeaseId: `sb-good-${n}`,
    acquiredAt: "2026-11-29T10:00:00.000Z",
    lastUsedAt: "2026-11-29T11:00:00.000Z",
    metadata: {
      provider: "createos",
      apiUrl: "https://api.example.test",
      companyId: "company-1",
      environmentId: "env-1",
    },
  };
}

/** Every way a row can be unusable, each carrying the canary where content could leak into a message. */
const BREAKERS: ((n: number) => unknown)[] = [
  () => null,
  () => CANARY,
  () => 42,
  () => [CANARY],
  () => true,
  (n) => ({ ...goodRow(n), id: undefined }),
  (n) => ({ ...goodRow(n), id: 7 }),
  (n) => ({ ...goodRow(n), id: "" }),
  (n) => ({ ...goodRow(n), id: `${CANARY}${"x".repeat(200)}` }),
  (n) => ({ ...goodRow(n), companyId: null }),
  (n) => ({ ...goodRow(n), status: "" }),
  (n) => ({ ...goodRow(n), status: `${CANARY}${"s".repeat(100)}` }),
  (n) => ({ ...goodRow(n), acquiredAt: CANARY }),
  (n) => ({ ...goodRow(n), lastUsedAt: { nested: CANARY } }),
  (n) => ({ ...goodRow(n), failureReason: `${CANARY}${"f".repeat(10_001)}` }),
  (n) => ({ ...goodRow(n), providerLeaseId: ["array", CANARY] }),
  (n) => ({ ...goodRow(n), environmentId: 3.14 }),
  (n) => ownKeys([["__proto__", { id: `proto-${n}`, polluted: CANARY }]]),
  (n) => ownKeys([...Object.entries(goodRow(n)).filter(([key]) => key !== "id"), ["constructor", CANARY]]),
  () => ({}),
];

describe(`a ledger with ${BAD} malformed rows`, () => {
  let dir: string;
  let ledgerPath: string;
  let badIndexes: number[];
  let goodIds: string[];
  let app: Core;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "leasekeeper-malformed-"));
    const random = seededRandom(10_000);
    const leases: unknown[] = [];
    badIndexes = [];
    goodIds = [];
    let good = 0;
    let bad = 0;
    while (good < GOOD || bad < BAD) {
      const pickBad = bad < BAD && (good >= GOOD || random() < BAD / (BAD + GOOD));
      if (pickBad) {
        badIndexes.push(leases.length);
        leases.push((BREAKERS[bad % BREAKERS.length] as (n: number) => unknown)(bad));
        bad += 1;
      } else {
        const row = goodRow(good);
        // Hostile but valid strings ride along in good rows.
        row.failureReason = (HOSTILE_STRINGS[good % HOSTILE_STRINGS.length]?.value ?? "").slice(0, 10_000);
        goodIds.push(row.id as string);
        leases.push(row);
        good += 1;
      }
    }
    const environments = [
      {
        id: "env-1",
        companyId: "company-1",
        name: "Agents",
        config: { provider: "createos", apiUrl: "https://api.example.test" },
      },
      { id: 5, name: CANARY },
      null,
    ];
    ledgerPath = path.join(dir, "ledger.json");
    writeFileSync(ledgerPath, JSON.stringify({ environments, leases }));
    writeFileSync(
      path.join(dir, "leasekeeper.config.json"),
      JSON.stringify({
        sources: [{ kind: "ledger", path: "ledger.json", name: "big ledger" }],
        credentials: [],
        dataDir: "data",
      }),
    );
    app = await openCore({
      configPath: path.join(dir, "leasekeeper.config.json"),
      mode: "browser",
      version: "test",
      env: {},
      autoRefresh: false,
      log: memoryLogger(),
    });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("loads exactly the good rows and lists exactly the bad ones, by index, without their content", async () => {
    const snapshot = await new LedgerSource({ id: "big ledger", path: ledgerPath }).load();
    expect(snapshot.leases.map((row) => row.id)).toEqual(goodIds);
    expect(snapshot.environments.map((environment) => environment.id)).toEqual(["env-1"]);
    const leaseProblems = snapshot.problems.filter((problem) => problem.message.startsWith("leases["));
    expect(leaseProblems.map((problem) => problem.index)).toEqual(badIndexes);
    for (const problem of leaseProblems) {
      expect(problem.message.startsWith(`leases[${problem.index}]`)).toBe(true);
      expect(problem.message).not.toContain(CANARY);
      expect(problem.message.length).toBeLessThan(300);
    }
    expect(
      snapshot.problems.filter((problem) => problem.message.startsWith("environments[")).map((p) => p.index),
    ).toEqual([1, 2]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    writeFigures("hostile-ledger", {
      rows: BAD + GOOD,
      malformed: BAD,
      good: GOOD,
      problemsListed: leaseProblems.length,
      goodLoaded: snapshot.leases.length,
    });
  });

  it("still shows every good row in the console, with the problem count and the first problems", async () => {
    const result = await app.handlers["inventory:get"]({ refresh: true }, { host: "test" });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const view = result.data as InventoryView;
    expect(
      decodeInventoryRows(view)
        .map((row) => row.leaseId)
        .sort(),
    ).toEqual([...goodIds].sort());
    expect(view.problemCount).toBe(BAD + 2);
    expect(view.problems).toHaveLength(MAX_PROBLEMS_IN_VIEW);
    expect(JSON.stringify(view.problems)).not.toContain(CANARY);
  });
});
