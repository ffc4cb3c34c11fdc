import { describe, expect, it } from "vitest";
import { listedEnvironmentId } from "../../../shared/domain/listed-environment.js";
import { reconcile } from "../../../shared/domain/reconcile.js";
import { reportedLease, scanReport } from "./report.js";
import { writeReportJson } from "./report-json.js";
import { generatedWorldInput } from "./testing/generated-world.js";

const inventory = reconcile(generatedWorldInput({ size: 400 }));

/** The rows in pages of `size`, an empty page among them, as a store's reader may hand them over. */
async function* paged<T>(rows: readonly T[], size: number): AsyncGenerator<T[]> {
  for (let from = 0; from < rows.length; from += size) {
    yield rows.slice(from, from + size);
    if (from === 0) yield [];
  }
}

async function written(environmentId: string | undefined, fresh: readonly string[], size: number) {
  const whole = scanReport(inventory, { environmentId, newSinceLastScan: fresh });
  const { leases, newSinceLastScan: _fromRows, ...rest } = whole;
  const rows = inventory.leases
    .filter((row) => environmentId === undefined || listedEnvironmentId(row) === environmentId)
    .map((row) => reportedLease(row, new Set(fresh)));
  expect(rows).toEqual(leases);
  let text = "";
  await writeReportJson((part) => (text += part), rest, paged(rows, size));
  return { text, expected: `${JSON.stringify(whole, null, 2)}\n` };
}

describe("a scan report written as its rows arrive", () => {
  const fresh = inventory.leases.filter((_, at) => at % 17 === 0).map((row) => row.lease.id);

  it.each([1, 7, 1000])("is the report's JSON byte for byte, rows in pages of %i", async (size) => {
    const { text, expected } = await written(undefined, fresh, size);
    expect(inventory.leases.length).toBeGreaterThan(300);
    expect(text).toBe(expected);
    expect(JSON.parse(text).newSinceLastScan.length).toBeGreaterThan(0);
  });

  it("is the report's JSON for one environment, and with no row and nothing new", async () => {
    const environmentId = listedEnvironmentId(inventory.leases[0]!)!;
    const one = await written(environmentId, fresh, 5);
    expect(one.text).toBe(one.expected);
    const none = await written("environment-nowhere", [], 5);
    expect(JSON.parse(none.text).leases).toEqual([]);
    expect(none.text).toBe(none.expected);
  });
});
