// Changes a share of the rows at a benchmark world's source, in a process of its own (the scan child
// spawns it between its cold scan and its rescan, so none of this work is counted as the scan's):
//   ledger        the file rewritten (streamed, one row a line as bench/inventory-world.ts writes it) with
//                 every 1/share-th lease row's updatedAt set to now
//   paperclip-db  UPDATE environment_leases SET updated_at = now() on every 1/share-th row by id
//   tsx bench/source-change.ts --config FILE [--share 0.01]
// Prints one JSON line: { changed, rows, ms }.

import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { readFile, rename } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import pg from "pg";

export interface SourceChangeResult {
  changed: number;
  rows: number;
  ms: number;
}

const { values } = parseArgs({
  options: { config: { type: "string" }, share: { type: "string", default: "0.01" } },
});
const every = Math.max(1, Math.round(1 / Number(values.share)));
const configFile = values.config!;
const config = JSON.parse(await readFile(configFile, "utf8")) as {
  sources: { kind: string; path?: string; urlEnv?: string }[];
};
const started = performance.now();
let changed = 0;
let rows = 0;
for (const source of config.sources) {
  if (source.kind === "ledger") {
    const counted = await changeLedger(path.resolve(path.dirname(configFile), source.path!));
    changed += counted.changed;
    rows += counted.rows;
  } else if (source.kind === "paperclip-db") {
    const counted = await changeDatabase(process.env[source.urlEnv!]!);
    changed += counted.changed;
    rows += counted.rows;
  } else {
    throw new Error(`source-change: cannot change a ${source.kind} source`);
  }
}
const result: SourceChangeResult = { changed, rows, ms: Math.round(performance.now() - started) };
process.stdout.write(`${JSON.stringify(result)}\n`);

async function changeLedger(file: string): Promise<{ changed: number; rows: number }> {
  const now = new Date().toISOString();
  const temporary = `${file}.changing`;
  const out = createWriteStream(temporary);
  let changedRows = 0;
  let leaseRows = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    let text = line;
    // A lease row is a line of its own, `{"id":…}` with a comma after it unless it is the last.
    if (line.startsWith('{"id":')) {
      leaseRows += 1;
      if (leaseRows % every === 0) {
        const comma = line.endsWith(",");
        const row = JSON.parse(comma ? line.slice(0, -1) : line) as Record<string, unknown>;
        row.updatedAt = now;
        text = `${JSON.stringify(row)}${comma ? "," : ""}`;
        changedRows += 1;
      }
    }
    if (!out.write(`${text}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  await rename(temporary, file);
  return { changed: changedRows, rows: leaseRows };
}

async function changeDatabase(url: string): Promise<{ changed: number; rows: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const updated = await client.query(
      `WITH numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM environment_leases)
       UPDATE environment_leases AS lease SET updated_at = now()
         FROM numbered WHERE numbered.id = lease.id AND numbered.n % $1 = 0`,
      [every],
    );
    const total = await client.query<{ count: string }>("SELECT count(*) FROM environment_leases");
    return { changed: updated.rowCount ?? 0, rows: Number(total.rows[0]!.count) };
  } finally {
    await client.end();
  }
}
