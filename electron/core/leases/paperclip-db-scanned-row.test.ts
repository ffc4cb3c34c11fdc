import { randomUUID } from "node:crypto";
import fc from "fast-check";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import {
  isTrimmableMetadata,
  keysLeftOutOfScan,
  scannedMetadata,
} from "../../../shared/domain/scanned-metadata.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { PaperclipDbSource } from "./paperclip-db.js";
import { rowProblemMessage } from "./paperclip-db-changed.js";
import { SourceError } from "./source.js";
import { createPaperclipSchema, PaperclipSeed } from "./testing/paperclip-db/seed.js";
import { readToEnd } from "./testing/read-all.js";

// A real embedded PostgreSQL: what is held here is what the server makes of each value, and what the
// driver makes of that, on the scan's way and on the way a row is read by id.
const postgres = postgresForSuite();

const API_URL = "https://api.sb.createos.sh";

/** Text PostgreSQL can store (no NUL, no unpaired surrogate), with the characters JSON and SQL escape. */
const text = fc
  .oneof(
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.string({
      unit: fc.constantFrom('"', "\\", "\n", "\t", "\u0001", "\u007f", "é", "😀", "/", "a"),
      maxLength: 12,
    }),
    fc.string({ unit: "grapheme", minLength: 190, maxLength: 260 }),
  )
  .map((value) => value.replaceAll("\u0000", "").replace(/\p{Cs}/gu, ""));

/**
 * Timestamps as PostgreSQL takes them: ordinary instants with any number of fraction digits, and the
 * ones a lease row may hold that no ISO 8601 instant of JavaScript reads (infinity, before Christ, past
 * 9999).
 */
const instant = fc.oneof(
  fc
    .record({
      at: fc.date({
        min: new Date("0001-01-01T00:00:00Z"),
        max: new Date("9999-12-31T23:59:59Z"),
        noInvalidDate: true,
      }),
      fraction: fc.string({ unit: fc.constantFrom("0", "1", "5", "9"), maxLength: 6 }),
    })
    .map(({ at, fraction }) => `${at.toISOString().slice(0, 19)}${fraction === "" ? "" : `.${fraction}`}Z`),
  fc.constantFrom(
    "infinity",
    "-infinity",
    "0044-03-15 12:00:00.5+00 BC",
    "12026-06-01 00:00:00+00",
    "1970-01-01 00:00:00+00",
    "2026-12-07 21:29:14.000001+00",
  ),
);

const metadata = fc.oneof(
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
  fc.record(
    {
      provider: fc.constantFrom("createos", null),
      apiUrl: fc.constant(API_URL),
      companyId: fc.uuid(),
      marker: fc.uuid(),
      pluginId: text,
      remoteCwd: text,
      shellCommand: fc.constant("bash"),
      note: text,
      nested: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ["provider"] },
  ),
);

const leaseColumns = fc.record({
  status: text,
  lease_policy: text,
  provider: fc.option(text),
  provider_lease_id: fc.option(text),
  acquired_at: instant,
  last_used_at: instant,
  expires_at: fc.option(instant),
  released_at: fc.option(instant),
  failure_reason: fc.option(text),
  cleanup_status: fc.option(text),
  metadata,
  created_at: instant,
  updated_at: instant,
  holders: fc.record({
    agentName: text,
    issueTitle: text,
    issueIdentifier: fc.option(text),
    workspaceName: text,
  }),
  held: fc.boolean(),
});
type LeaseColumns = typeof leaseColumns extends fc.Arbitrary<infer T> ? T : never;

/** JSON has no way to say `\u0000` in a string PostgreSQL keeps as jsonb: such metadata is left out. */
const storable = (value: unknown) => !JSON.stringify(value ?? null).includes("\\u0000");

async function seeded(rows: readonly LeaseColumns[]): Promise<{ url: string; ids: string[] }> {
  const db = await postgres().createDatabase("scanned_row");
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    const company = await seed.company("Acme Robotics");
    const environment = await seed.environment({
      name: "CreateOS sandboxes",
      config: { provider: "createos", apiUrl: API_URL },
    });
    const ids: string[] = [];
    for (const row of rows) {
      let holders = {};
      if (row.held) {
        const agent = await seed.agent(company, row.holders.agentName);
        const issue = await seed.issue(company, row.holders.issueTitle, row.holders.issueIdentifier);
        holders = {
          heartbeat_run_id: await seed.run(company, "running", undefined, agent),
          issue_id: issue,
          execution_workspace_id: await seed.executionWorkspace(company, row.holders.workspaceName),
        };
      }
      const { holders: _names, held: _held, ...columns } = row;
      const id = randomUUID();
      await client.query(
        `INSERT INTO environment_leases SELECT * FROM json_populate_record(null::environment_leases, $1::json)`,
        [JSON.stringify({ ...columns, ...holders, id, company_id: company, environment_id: environment })],
      );
      ids.push(id);
    }
    return { url: db.url, ids };
  } finally {
    await client.end();
  }
}

const MALFORMED = "the lease row is malformed (";

/** A row read by id, or what is wrong with it when it is malformed. */
async function readById(source: PaperclipDbSource, id: string): Promise<LeaseRow | string> {
  try {
    return (await source.readLease(id))!;
  } catch (error) {
    if (error instanceof SourceError && error.reason.startsWith(MALFORMED))
      return error.reason.slice(MALFORMED.length, -1);
    throw error;
  }
}

describe("a row as a scan reads it", () => {
  it("is the row read by id, save the host's bookkeeping left out of its metadata; an unusable row fails alike", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          leaseColumns.filter((row) => storable(row.metadata)),
          { minLength: 30, maxLength: 60 },
        ),
        async (rows) => {
          const { url, ids } = await seeded(rows);
          const source = new PaperclipDbSource({ id: "paperclip-db", url, timeoutMs: 10_000, pageSize: 7 });
          try {
            const { rows: scanned, end } = await readToEnd(await source.read());
            const byId = new Map(scanned.map((row) => [row.id, row]));
            const problems = new Set(end.problems.map((problem) => problem.message));
            const leftOut = keysLeftOutOfScan(["provider", "apiUrl"]);
            for (const id of ids) {
              const whole = await readById(source, id);
              if (typeof whole === "string") {
                expect(byId.has(id), whole).toBe(false);
                expect(problems).toContain(rowProblemMessage({ id, message: whole }));
                continue;
              }
              const expected: LeaseRow = { ...whole, metadata: scannedMetadata(whole.metadata, leftOut) };
              if (isTrimmableMetadata(whole.metadata)) expected.partialMetadata = true;
              expect(byId.get(id), id).toStrictEqual(expected);
            }
          } finally {
            await source.close();
          }
        },
      ),
      { numRuns: 4, endOnFailure: true },
    );
  }, 120_000);
});
