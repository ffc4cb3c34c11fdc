import { describe, expect, it } from "vitest";
import { REDACTED, SecretRedactor } from "./redactor.js";

describe("the secret redactor", () => {
  const key = "k3y.with+pattern*chars(|)[x]{2}^$\\end";

  it("finds a key with pattern characters in it, in every form, and nothing else", () => {
    const redactor = new SecretRedactor();
    redactor.set([key]);
    const bytes = Buffer.from(key, "utf8");
    for (const form of [
      key,
      bytes.toString("base64"),
      bytes.toString("base64url"),
      bytes.toString("hex"),
      encodeURIComponent(key),
    ]) {
      expect(redactor.redact(`before ${form} after`), form).toBe(`before ${REDACTED} after`);
    }
    // The same letters without the pattern characters are not the key.
    expect(redactor.contains("k3yXwithXpatternXchars")).toBe(false);
    expect(redactor.redact("k3y")).toBe("k3y");
  });

  it("replaces a longer key whole when a shorter one is part of it", () => {
    const redactor = new SecretRedactor();
    redactor.set(["abcdef", "abcdef-longer-key"]);
    expect(redactor.redact("x abcdef-longer-key y abcdef z")).toBe(`x ${REDACTED} y ${REDACTED} z`);
  });

  it("gives back the same object when nothing in it holds a key, and a redacted copy when something does", () => {
    const redactor = new SecretRedactor();
    redactor.set([key]);
    const clean = { leases: { leaseId: ["a", "b"], flags: [1, 2] }, note: "nothing here" };
    expect(redactor.redactDeep(clean)).toBe(clean);
    const dirty = { leases: { leaseId: ["a", `id-${key}`] }, [key]: 1 };
    const copy = redactor.redactDeep(dirty);
    expect(copy).toEqual({ leases: { leaseId: ["a", `id-${REDACTED}`] }, [REDACTED]: 1 });
    expect(dirty.leases.leaseId[1]).toBe(`id-${key}`);
  });

  it("redacts nothing once its keys are cleared", () => {
    const redactor = new SecretRedactor();
    redactor.set([key]);
    redactor.set([]);
    expect(redactor.active).toBe(false);
    expect(redactor.redact(key)).toBe(key);
  });
});
