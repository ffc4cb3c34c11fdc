import { describe, expect, it } from "vitest";
import { openMemoryDatabase } from "../../store/database.js";
import { JudgedInventoryStore } from "../../store/judged-inventory-store.js";
import { judgingSalt } from "./judging-salt.js";

const KEY = "sk-live-salt-canary-30417";

describe("the salt rows are judged under", () => {
  const base = { rules: "rules-a", keys: [KEY], seed: "seed-a" };

  it("is the same for the same rules, keys and seed, whatever the keys' order and repeats", async () => {
    expect(await judgingSalt(base)).toBe(await judgingSalt({ ...base }));
    expect(await judgingSalt({ ...base, keys: ["another-key-1234", KEY] })).toBe(
      await judgingSalt({ ...base, keys: [KEY, "another-key-1234", KEY] }),
    );
  });

  it("is another for other rules, other keys, no keys, or another store's seed", async () => {
    const salts = await Promise.all([
      judgingSalt(base),
      judgingSalt({ ...base, rules: "rules-b" }),
      judgingSalt({ ...base, keys: [`${KEY}x`] }),
      judgingSalt({ ...base, keys: [] }),
      judgingSalt({ ...base, seed: "seed-b" }),
    ]);
    expect(new Set(salts).size).toBe(salts.length);
  });

  it("holds none of the keys in any form", async () => {
    const salt = await judgingSalt(base);
    for (const form of [KEY, Buffer.from(KEY).toString("base64"), Buffer.from(KEY).toString("hex")])
      expect(salt).not.toContain(form);
  });

  it("draws its seed once per store: every process on the store reads the same one", () => {
    const db = openMemoryDatabase();
    const identity = <T>(value: T) => value;
    const seed = new JudgedInventoryStore(db, identity).judgingSeed();
    expect(seed).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(new JudgedInventoryStore(db, identity).judgingSeed()).toBe(seed);
    expect(new JudgedInventoryStore(openMemoryDatabase(), identity).judgingSeed()).not.toBe(seed);
    db.close();
  });
});
