import { describe, expect, it } from "vitest";
import type { InventoryView } from "../../../../shared/contract";
import { unreadPart } from "./unread-part";

type Gap = InventoryView["gaps"][number];
const gap = (environmentId?: string, source = "paperclip"): Gap => ({
  source,
  origin: null,
  message: "HTTP 500 listing leases",
  ...(environmentId === undefined ? {} : { environmentId }),
});

describe("unreadPart", () => {
  it("is null only when every source read all its leases", () => {
    expect(unreadPart({ gaps: [] })).toBeNull();
  });

  it("counts the environments whose leases were not read, each once", () => {
    expect(unreadPart({ gaps: [gap("env-1")] })).toBe("1 environment was not read");
    expect(unreadPart({ gaps: [gap("env-1"), gap("env-2"), gap("env-2")] })).toBe(
      "2 environments were not read",
    );
    // The same id under two sources is two environments.
    expect(unreadPart({ gaps: [gap("env-1", "a"), gap("env-1", "b")] })).toBe("2 environments were not read");
  });

  it("says a source's gap that names no environment", () => {
    expect(unreadPart({ gaps: [gap()] })).toBe("a source could not read all its leases");
    expect(unreadPart({ gaps: [gap("env-1"), gap()] })).toBe(
      "1 environment was not read, and a source could not read all its leases",
    );
  });

  it("does not take an inventory not in hand as read whole", () => {
    expect(unreadPart(undefined)).toBe("whether every lease was read is not known");
  });
});
