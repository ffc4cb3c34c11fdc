import { describe, expect, it } from "vitest";
import { withoutSecrets } from "./rows.js";

describe("withoutSecrets", () => {
  it("drops secret-named keys at any depth, in objects and arrays, and leaves the input as it was", () => {
    const input = {
      apiUrl: "https://api.example",
      API_KEY: "k",
      nested: { password: "p", region: "eu", deeper: [{ authToken: "t", shape: "s" }, "plain"] },
      list: [1, { privateKey: "x" }],
    };
    const copy = structuredClone(input);
    expect(withoutSecrets(input)).toStrictEqual({
      apiUrl: "https://api.example",
      nested: { region: "eu", deeper: [{ shape: "s" }, "plain"] },
      list: [1, {}],
    });
    expect(input).toStrictEqual(copy);
  });

  it("hands back the very same value when nothing in it names a secret", () => {
    const clean = { provider: "createos", nested: { region: "eu" }, list: [{ shape: "s" }] };
    expect(withoutSecrets(clean)).toBe(clean);
    const partly = { keep: { region: "eu" }, drop: { secret: 1 } };
    const redacted = withoutSecrets(partly);
    expect(redacted).not.toBe(partly);
    // Only the branch that held a secret is copied.
    expect(redacted.keep).toBe(partly.keep);
  });

  it('keeps a JSON "__proto__" key as a plain property and never walks into a class instance', () => {
    const parsed = JSON.parse('{"__proto__": {"token": "t", "ok": 1}, "apiKey": "k"}') as object;
    const redacted = withoutSecrets(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(redacted, "__proto__")?.value).toStrictEqual({ ok: 1 });
    expect(Object.keys(redacted)).toEqual(["__proto__"]);
    const date = new Date(0);
    expect(withoutSecrets({ when: date }).when).toBe(date);
  });

  it("copies an array or object only from its first change on, keeping what came before as it was", () => {
    const clean = { region: "eu" };
    const list = [clean, { token: "t", keep: 1 }, clean];
    const redacted = withoutSecrets(list);
    expect(redacted).toStrictEqual([{ region: "eu" }, { keep: 1 }, { region: "eu" }]);
    expect(redacted[0]).toBe(clean);
    expect(redacted[2]).toBe(clean);
    // A secret deep in a long chain: every level on the way is copied once, the rest of it is not.
    let deep: Record<string, unknown> = { password: "p", region: "eu" };
    const sibling = { shape: "s" };
    for (let level = 0; level < 2_000; level++) deep = { sibling, next: deep };
    let walked = withoutSecrets(deep);
    for (let level = 0; level < 2_000; level++) {
      expect(walked.sibling).toBe(sibling);
      walked = walked.next as Record<string, unknown>;
    }
    expect(walked).toStrictEqual({ region: "eu" });
  });

  it("answers the same for a key however often it is seen", () => {
    const rows = Array.from({ length: 3 }, () => ({ sessionToken: "t", region: "eu" }));
    expect(rows.map((row) => withoutSecrets(row))).toStrictEqual([
      { region: "eu" },
      { region: "eu" },
      { region: "eu" },
    ]);
  });
});
