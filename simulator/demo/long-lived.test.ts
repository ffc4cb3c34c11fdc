import { describe, expect, it } from "vitest";
import { generateDemoWorld } from "./generate.js";
import { HISTORY_CHUNK_ROWS } from "./long-lived.js";

describe("a long-lived world (liveRows)", () => {
  const options = { size: 25_000, liveRows: 1_000, historyShare: 0.96, seed: "long-lived" };

  it("is the live world as a world of that size, and streams the rest as closed history", () => {
    const world = generateDemoWorld(options);
    expect(world.ledger.leases).toHaveLength(1_000);
    const live = generateDemoWorld({ size: 1_000, seed: "long-lived" });
    expect(JSON.stringify(world.ledger)).toBe(JSON.stringify(live.ledger));
    const stream = world.historyStream!;
    expect(stream.rows).toBe(24_000);
    const chunks = [...stream.chunks()];
    expect(chunks.map((chunk) => chunk.leases.length)).toEqual([
      HISTORY_CHUNK_ROWS,
      HISTORY_CHUNK_ROWS,
      4_000,
    ]);
    const rows = chunks.flatMap((chunk) => chunk.leases);
    expect(new Set(rows.map((row) => row.status))).toEqual(new Set(["released", "expired", "failed"]));
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    // Mostly gone from the listing: a few destroyed ones still listed, fewer still running (leaks).
    const listed = chunks.flatMap((chunk) => chunk.sandboxes.flatMap((account) => account.sandboxes));
    expect(listed.length).toBeGreaterThan(rows.length * 0.015);
    expect(listed.length).toBeLessThan(rows.length * 0.03);
    expect(listed.filter((sandbox) => sandbox.status === "running").length).toBe(24);
  });

  it("makes the same chunks on every call", () => {
    const first = generateDemoWorld(options).historyStream!.chunks().next().value;
    const again = generateDemoWorld(options).historyStream!.chunks().next().value;
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
  });

  it("refuses a history share that does not agree with the live rows", () => {
    expect(() => generateDemoWorld({ ...options, historyShare: 0.5 })).toThrow(/historyShare/);
  });
});
