import { describe, expect, it } from "vitest";
import { type KeptAddressStorage, keepForReload, takeKeptForReload } from "./address-kept-for-reload";

function memoryStorage(): KeptAddressStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

const PAGE = "http://127.0.0.1:5173/#q=acme";

describe("the address kept for a reload", () => {
  it("is followed by the next page when it opens on the address it was kept for, and only once", () => {
    const storage = memoryStorage();
    keepForReload(storage, PAGE, "/#q=acme-prod");
    expect(takeKeptForReload(storage, PAGE)).toBe("/#q=acme-prod");
    expect(takeKeptForReload(storage, PAGE)).toBeNull();
    expect(storage.items.size).toBe(0);
  });

  it("is forgotten by a page that opens elsewhere (Back, a link, a pasted address)", () => {
    const storage = memoryStorage();
    keepForReload(storage, PAGE, "/#q=acme-prod");
    expect(takeKeptForReload(storage, "http://127.0.0.1:5173/#view=audit")).toBeNull();
    expect(takeKeptForReload(storage, PAGE)).toBeNull();
  });

  it("keeps nothing beside a launch token", () => {
    const storage = memoryStorage();
    keepForReload(storage, "http://127.0.0.1:5173/#token=secret", "/#q=acme");
    keepForReload(storage, PAGE, "/?token=secret#q=acme");
    expect(storage.items.size).toBe(0);
  });

  it("reads what it cannot use as nothing kept, and forgets it", () => {
    const storage = memoryStorage();
    for (const raw of [
      "{",
      "null",
      '"/#q=a"',
      JSON.stringify({ from: PAGE }),
      JSON.stringify({ from: PAGE, to: "//evil.example/" }),
      JSON.stringify({ from: PAGE, to: "https://evil.example/" }),
    ]) {
      storage.setItem("leasekeeper.addressKeptForReload", raw);
      expect(takeKeptForReload(storage, PAGE), raw).toBeNull();
      expect(storage.items.size).toBe(0);
    }
  });

  it("leaves the page as it would be without it when storage refuses", () => {
    const refusing: KeptAddressStorage = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => {
        throw new Error("SecurityError");
      },
    };
    expect(() => keepForReload(refusing, PAGE, "/#q=acme-prod")).not.toThrow();
    expect(takeKeptForReload(refusing, PAGE)).toBeNull();
  });
});
