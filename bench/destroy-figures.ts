// The bulk-destroy benchmark's figures. The benchmark itself (bench/destroy.ts, `runDestroyBench`) belongs
// to the action engine; this file only turns its result into rows of the one table.
import type { Figure } from "./lib/report.js";

export interface DestroyFiguresInput {
  count: number;
  rateLimitPerMinute: number;
}

export interface DestroyResult {
  count: number;
  rateLimitPerMinute: number;
  wallMs: number;
  floorMs: number;
  ratio: number;
  requests: number;
  requestsPerItem: number;
  rateLimited: number;
  confirmed: number;
  byRoute?: Record<string, number>;
}

export async function runDestroy(options: DestroyFiguresInput): Promise<DestroyResult> {
  const { runDestroyBench } = (await import("./destroy.js")) as {
    runDestroyBench: (
      options: DestroyFiguresInput,
    ) => Promise<Omit<DestroyResult, "count" | "rateLimitPerMinute">>;
  };
  return { ...options, ...(await runDestroyBench(options)) };
}

/** List pages read to re-check and verify: the "few list pages" the per-item figure is allowed beside it. */
function listPages(result: DestroyResult): number {
  return Object.entries(result.byRoute ?? {})
    .filter(([route]) => route === "GET /v1/sandboxes")
    .reduce((sum, [, n]) => sum + n, 0);
}

export function destroyFigures(result: DestroyResult): Figure[] {
  const bench = `destroy ${result.count.toLocaleString("en-US")}`;
  const pages = listPages(result);
  const perItemWithoutPages = (result.requests - pages) / result.count;
  // The least the rate limit allows: one DELETE per item plus the list pages actually needed, at the budget.
  const neededFloorMs = ((result.count + pages) * 60_000) / result.rateLimitPerMinute;
  return [
    {
      bench,
      name: `wall @ ${result.rateLimitPerMinute}/min`,
      value: result.wallMs,
      unit: "ms",
      reference: { label: "rate-limit floor", value: Math.round(neededFloorMs) },
      target: { kind: "ratio", max: 1.1, text: "≤ 1.1× floor" },
      note: `floor = (${result.count} DELETEs + ${pages} list pages) ÷ budget; the engine's own floor for the ${result.requests} requests it made is ${Math.round(result.floorMs)} ms (${result.ratio}×)`,
    },
    {
      bench,
      name: "429 responses",
      value: result.rateLimited,
      unit: "count",
      reference: null,
      target: { kind: "equal", value: 0, text: "0" },
    },
    {
      bench,
      name: "requests per item",
      value: Number(perItemWithoutPages.toFixed(3)),
      unit: "req/item",
      reference: { label: "list pages besides", value: pages, unit: "requests" },
      target: { kind: "max", value: 1.1, text: "< 1.1 + a few list pages" },
      note: `${result.requests} requests in all (${result.requestsPerItem} per item with the list pages); by route ${JSON.stringify(result.byRoute ?? {})}`,
    },
    {
      bench,
      name: "confirmed",
      value: result.confirmed,
      unit: "count",
      reference: null,
      target: { kind: "equal", value: result.count, text: `= ${result.count}` },
    },
  ];
}
