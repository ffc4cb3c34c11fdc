import { describe, expect, it } from "vitest";
import type { QuarantineList } from "../../../../shared/contract";
import type { Quarantine } from "../../../../shared/domain/quarantine";
import { quarantineStanding } from "./quarantine-standing";

const NOW = "2026-01-01T00:00:00.000Z";
const held = { sandboxId: "sbx-held" } as Quarantine;
const list = (cut: boolean): QuarantineList => ({ now: NOW, quarantines: [held], cut });

describe("quarantineStanding", () => {
  it("is none only for a list read whole that does not hold the sandbox", () => {
    expect(quarantineStanding({ data: list(false), error: null }, "sbx-other")).toEqual({ kind: "none" });
  });

  it("is reading while the list has not come", () => {
    expect(quarantineStanding({ data: undefined, error: null }, "sbx-other")).toEqual({ kind: "reading" });
  });

  it("is unread when the read failed, with or without an earlier list", () => {
    const error = { code: "unavailable", message: "The quarantine store could not be read." };
    for (const data of [undefined, list(false)]) {
      expect(quarantineStanding({ data, error }, "sbx-other")).toEqual({
        kind: "unread",
        sentence: "Whether it is quarantined could not be read: The quarantine store could not be read.",
      });
    }
  });

  it("is unread when the list is cut and does not hold the sandbox", () => {
    const standing = quarantineStanding({ data: list(true), error: null }, "sbx-other");
    expect(standing.kind).toBe("unread");
    expect(standing).toMatchObject({ sentence: expect.stringContaining("is not known: the list") });
  });

  it("is open for a sandbox the list holds, cut or not", () => {
    expect(quarantineStanding({ data: list(true), error: null }, "sbx-held")).toEqual({
      kind: "open",
      quarantine: held,
    });
  });
});
