import { describe, expect, it } from "vitest";
import { makeInventoryFixture } from "../../../shared/contract/inventory-fixture.js";
import type { SourceGap } from "../../../shared/domain/paperclip.js";
import { inventoryFigures } from "./figures.js";

// The per-environment series follow the report's `leasesRead`: an environment whose count is not known
// has no series, for a zero or a partial count would be read as its leases.

const inventory = makeInventoryFixture({ rows: 40, environments: 3 });
const source = inventory.environments[0]!.sourceId;
const series = (gaps: SourceGap[]) =>
  inventoryFigures({ ...inventory, gaps }).environments.map((environment) => environment.name);
const names = inventory.environments.map((environment) => environment.name);
const otherSources = inventory.environments
  .filter((environment) => environment.sourceId !== source)
  .map((environment) => environment.name);

describe("inventoryFigures' environments", () => {
  it("has a series for every environment while no gap stands", () => {
    expect(series([])).toEqual(names);
  });

  it("has none for the environments of a source whose gap names no environment and may hide a lease of any", () => {
    expect(series([{ source, origin: null, message: "leases[7] could not be read" }])).toEqual(otherSources);
    expect(otherSources.length).toBeLessThan(names.length);
    expect(
      series([{ source: "another source", origin: null, message: "leases[7] could not be read" }]),
    ).toEqual(names);
  });

  it("keeps every series when the gap may hide only environments the source did not list", () => {
    const gap: SourceGap = {
      source,
      origin: null,
      message: "environments[2] could not be read",
      unlistedOnly: true,
    };
    expect(series([gap])).toEqual(names);
  });
});
