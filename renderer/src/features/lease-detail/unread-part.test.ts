import { describe, expect, it } from "vitest";
import {
  encodeInventory,
  type InventoryView,
  MAX_PROBLEMS_IN_VIEW,
  unreadOfGaps,
} from "../../../../shared/contract";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture";
import { unreadPart } from "./unread-part";

type Gap = InventoryView["gaps"][number];
const gap = (environmentId?: string, source = "paperclip"): Gap => ({
  source,
  origin: null,
  message: "HTTP 500 listing leases",
  ...(environmentId === undefined ? {} : { environmentId }),
});

// A view's gaps as main tells them; none of these environments has an entry of its own in it.
const viewOf = (gaps: Gap[]) => ({ environments: [], gapCount: gaps.length, unread: unreadOfGaps(gaps, []) });

describe("unreadPart", () => {
  it("is null only when every source read all its leases", () => {
    expect(unreadPart(viewOf([]))).toBeNull();
  });

  it("counts the environments whose leases were not read, each once", () => {
    expect(unreadPart(viewOf([gap("env-1")]))).toBe("1 environment was not read");
    expect(unreadPart(viewOf([gap("env-1"), gap("env-2"), gap("env-2")]))).toBe(
      "2 environments were not read",
    );
    // The same id under two sources is two environments.
    expect(unreadPart(viewOf([gap("env-1", "a"), gap("env-1", "b")]))).toBe("2 environments were not read");
  });

  it("counts an environment the view gives two entries once", () => {
    const entry = {
      sourceId: "paperclip",
      environmentId: "env-1",
      company: -1,
      name: "env-1",
      known: true,
      counts: { closed: 0, foreign: 0, stale: 0, leaking: 0, unknown: 0, ok: 1 },
    };
    const environments = [entry, entry];
    const gaps = [gap("env-1"), gap("env-3")];
    expect(unreadPart({ environments, gapCount: 2, unread: unreadOfGaps(gaps, environments) })).toBe(
      "2 environments were not read",
    );
  });

  it("says a source's gap that names no environment", () => {
    expect(unreadPart(viewOf([gap()]))).toBe("a source could not read all its leases");
    expect(unreadPart(viewOf([gap("env-1"), gap()]))).toBe(
      "1 environment was not read, and a source could not read all its leases",
    );
  });

  it("does not take an inventory not in hand as read whole", () => {
    expect(unreadPart(undefined)).toBe("whether every lease was read is not known");
  });

  it("counts an environment only a gap after the first MAX_PROBLEMS_IN_VIEW names", () => {
    const inventory = makeInventoryFixture({ rows: 20, environments: 3, seed: 5 });
    inventory.gaps = Array.from({ length: MAX_PROBLEMS_IN_VIEW + 1 }, (_, at) =>
      gap(at < MAX_PROBLEMS_IN_VIEW ? "env-1" : "env-2"),
    );
    expect(unreadPart(encodeInventory(inventory))).toBe("2 environments were not read");
  });
});
