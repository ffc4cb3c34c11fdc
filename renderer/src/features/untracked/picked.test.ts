import { describe, expect, it } from "vitest";
import { keepLivePicks } from "./picked";

describe("keepLivePicks: the untracked pick after the list changed", () => {
  const listed = [
    { sandboxId: "sb-live", status: "running" },
    { sandboxId: "sb-done", status: "destroyed" },
  ];

  it("drops a sandbox now destroyed and one no longer listed, so no empty plan follows", () => {
    expect([...keepLivePicks(new Set(["sb-live", "sb-done", "sb-purged"]), listed)]).toEqual(["sb-live"]);
    expect(keepLivePicks(new Set(["sb-done"]), listed).size).toBe(0);
  });

  it("keeps the same set while every pick is still live", () => {
    const picked = new Set(["sb-live"]);
    expect(keepLivePicks(picked, listed)).toBe(picked);
  });
});
