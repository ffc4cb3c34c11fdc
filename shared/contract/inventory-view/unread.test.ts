import { describe, expect, it } from "vitest";
import type { SourceGap } from "../../domain/paperclip.js";
import { makeInventoryFixture } from "../inventory-fixture.js";
import { encodeInventory } from "./encode.js";
import { InventoryViewSchema, isCurrentView, MAX_PROBLEMS_IN_VIEW } from "./schema.js";
import { unreadOfGaps } from "./unread.js";

const gap = (source: string, message: string, fields: Partial<SourceGap> = {}): SourceGap => ({
  source,
  origin: null,
  message,
  ...fields,
});

describe("unreadOfGaps", () => {
  const environments = [
    { sourceId: "ledger", environmentId: "x" },
    { sourceId: "ledger", environmentId: "y" },
    { sourceId: "ledger", environmentId: "x" },
    { sourceId: "paperclip", environmentId: "x" },
  ];

  it("gives each environment a gap names the first such gap's words, every entry of it, and no other", () => {
    const unread = unreadOfGaps(
      [
        gap("ledger", "HTTP 503", { environmentId: "x" }),
        gap("ledger", "leases[4] could not be read", { environmentId: "x" }),
      ],
      environments,
    );
    expect(unread.byEnvironment).toEqual(["HTTP 503", null, "HTTP 503", null]);
    expect(unread).toMatchObject({ namedElsewhere: 0, anyEnvironment: [], unlistedEnvironments: [] });
  });

  it("counts the environments gaps name that have no entry, each once per source", () => {
    const unread = unreadOfGaps(
      [
        gap("ledger", "a", { environmentId: "gone" }),
        gap("ledger", "b", { environmentId: "gone" }),
        gap("paperclip", "c", { environmentId: "gone" }),
      ],
      environments,
    );
    expect(unread.namedElsewhere).toBe(2);
    expect(unread.byEnvironment).toEqual([null, null, null, null]);
  });

  it("tells a source with a gap naming none once, and counts the gaps that may hide only environments not listed", () => {
    const unread = unreadOfGaps(
      [
        gap("ledger", "leases[2] could not be read"),
        gap("ledger", "leases[3] could not be read"),
        gap("paperclip", "no company for this key", { unlistedOnly: true }),
        gap("paperclip", "environments[1] could not be read", { unlistedOnly: true }),
      ],
      environments,
    );
    expect(unread.anyEnvironment).toEqual([{ source: "ledger", message: "leases[2] could not be read" }]);
    expect(unread.unlistedEnvironments).toEqual([
      { source: "paperclip", message: "no company for this key", count: 2 },
    ]);
    expect(unread.byEnvironment).toEqual([null, null, null, null]);
  });
});

describe("the view's unread parts", () => {
  it("are told of every gap, past the first MAX_PROBLEMS_IN_VIEW the view lists, in a size of the environments", () => {
    const inventory = makeInventoryFixture({ rows: 40, environments: 4, seed: 5 });
    const [first, second] = inventory.environments;
    const source = first!.sourceId;
    inventory.gaps = [
      ...Array.from({ length: 3 * MAX_PROBLEMS_IN_VIEW }, (_, at) =>
        gap(source, `leases[${at}] could not be read`, { environmentId: first!.environmentId! }),
      ),
      gap(source, "leases[600] could not be read", { environmentId: second!.environmentId! }),
    ];
    const view = InventoryViewSchema.parse(encodeInventory(inventory, { leaveOutHistory: true }));
    expect(isCurrentView(view)).toBe(true);
    expect(view.gaps).toHaveLength(MAX_PROBLEMS_IN_VIEW);
    expect(view.gapCount).toBe(3 * MAX_PROBLEMS_IN_VIEW + 1);
    expect(view.unread.byEnvironment).toHaveLength(view.environments.length);
    const at = view.environments.findIndex(
      (environment) => environment.environmentId === second!.environmentId,
    );
    expect(view.unread.byEnvironment[at]).toBe("leases[600] could not be read");
  });

  it("follow the environments a view cut to one environment keeps", () => {
    const inventory = makeInventoryFixture({ rows: 40, environments: 4, seed: 5 });
    const [first, second] = inventory.environments;
    inventory.gaps = [
      gap(first!.sourceId, "HTTP 503", { environmentId: first!.environmentId! }),
      gap(second!.sourceId, "HTTP 500", { environmentId: second!.environmentId! }),
    ];
    const view = encodeInventory(inventory, { environmentId: second!.environmentId, leaveOutHistory: true });
    // The fixture lists each environment under two sources; the gap is of one of them.
    expect(view.environments.map((environment) => environment.environmentId)).toEqual([
      second!.environmentId,
      second!.environmentId,
    ]);
    expect(view.unread.byEnvironment).toEqual(
      view.environments.map((environment) => (environment.sourceId === second!.sourceId ? "HTTP 500" : null)),
    );
    expect(view.unread.namedElsewhere).toBe(1);
  });

  it("are not read from a stored view of the shape before them", () => {
    const view = encodeInventory(makeInventoryFixture({ rows: 10, environments: 2, seed: 5 }));
    const { unread: _unsaid, gapCount: _uncounted, ...older } = view;
    expect(isCurrentView({ ...older, version: 2 } as unknown as typeof view)).toBe(false);
    expect(isCurrentView(older as typeof view)).toBe(false);
  });
});
