import { describe, expect, it } from "vitest";
import { redactEvidence } from "./redact.js";

describe("audit evidence redaction", () => {
  it("keeps the first 8 characters of the workspace marker, at any depth", () => {
    const evidence = redactEvidence({
      marker: "0f8fad5b-d9cb-469f-a165-70867728950e",
      reusableSandboxLease: { workspaceSentinel: "abcdef0123456789" },
    });
    expect(evidence).toEqual({
      marker: "0f8fad5b…",
      reusableSandboxLease: { workspaceSentinel: "abcdef01…" },
    });
  });

  it.each([
    "apiKey",
    "api_key",
    "CREATEOS_API_KEY",
    "token",
    "accessToken",
    "secret",
    "clientSecret",
    "password",
  ])("drops a key named %s whatever its value", (key) => {
    expect(redactEvidence({ [key]: "value", keep: 1 })).toEqual({ keep: 1 });
  });

  it("drops any value equal to a configured API key, wherever it sits", () => {
    const secrets = new Set(["sk-live-123456"]);
    const evidence = redactEvidence({ note: "sk-live-123456", list: ["a", "sk-live-123456"] }, secrets);
    expect(evidence).toStrictEqual({ list: ["a"] });
  });

  it("cuts a configured API key out of a longer text", () => {
    const secrets = new Set(["sk-live-123456"]);
    expect(redactEvidence({ note: "copied from a shell: sk-live-123456 ok" }, secrets)).toStrictEqual({
      note: "copied from a shell: [redacted] ok",
    });
  });

  it("keeps what an operator judged on", () => {
    const metadata = {
      provider: "createos",
      apiUrl: "https://api.sb.createos.sh",
      companyId: "c",
      shape: "s",
    };
    expect(redactEvidence(metadata)).toEqual(metadata);
  });

  it("bounds depth and length, and turns non-objects into a value", () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let n = 0; n < 10; n += 1) deep = { deeper: deep };
    expect(JSON.stringify(redactEvidence(deep))).toContain('"…"');
    expect((redactEvidence({ long: "x".repeat(5000) }) as { long: string }).long.length).toBeLessThan(2100);
    expect(redactEvidence("a string")).toEqual({ value: "a string" });
    expect(redactEvidence(null)).toBeNull();
  });
});
