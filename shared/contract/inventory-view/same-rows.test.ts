import { describe, expect, it } from "vitest";
import type { Inventory } from "../../domain/inventory.js";
import { makeInventoryFixture } from "../inventory-fixture.js";
import { type EncodeOptions, encodeInventory } from "./encode.js";
import { viewOfSameRows } from "./same-rows.js";

const OPTIONS: EncodeOptions = { leaveOutHistory: true };

/** The inventory scanned again later: its rows the same, the rest of it otherwise. */
function later(inventory: Inventory): Inventory {
  return {
    ...inventory,
    generatedAt: "2026-12-08T01:00:00.000Z",
    requests: inventory.requests + 3,
    environments: inventory.environments.map((environment, at) =>
      at === 1 ? { ...environment, name: `${environment.name} (renamed)` } : environment,
    ),
    companies: inventory.companies.map((company, at) =>
      at === 0 ? { ...company, name: "Renamed Co" } : company,
    ),
    untracked: inventory.untracked.slice(1),
    gaps: [
      ...inventory.gaps,
      { source: "createos", origin: "https://api.createos.example", message: "the listing was cut short" },
    ],
  };
}

describe("the view of the same rows under a later inventory", () => {
  const inventory = makeInventoryFixture({ rows: 400, seed: 31 });
  // Rows whose environment no source lists any more: the view makes entries of its own for them.
  const unlisted = {
    ...inventory,
    environments: inventory.environments.slice(2),
  };

  it.each([
    ["the fixture's orphans' environment made for their rows", inventory],
    ["two listed environments' entries made for their rows", unlisted],
  ])("is the view a builder gives the later inventory and the same rows (%s)", (_, before) => {
    const earlier = encodeInventory(before, OPTIONS);
    expect(earlier.environments.length).toBeGreaterThan(before.environments.length);
    const now = later(before);
    const view = viewOfSameRows(
      earlier,
      { inventory: before, options: OPTIONS },
      { inventory: now, options: OPTIONS },
    );
    expect(JSON.stringify(view)).toBe(JSON.stringify(encodeInventory(now, OPTIONS)));
  });

  it("is none when a listed environment's company changed, which numbers the companies otherwise", () => {
    const earlier = encodeInventory(inventory, OPTIONS);
    const now = {
      ...inventory,
      environments: inventory.environments.map((environment, at) =>
        at === 0 ? { ...environment, companyId: "another-company" } : environment,
      ),
    };
    expect(
      viewOfSameRows(earlier, { inventory, options: OPTIONS }, { inventory: now, options: OPTIONS }),
    ).toBeNull();
  });
});
