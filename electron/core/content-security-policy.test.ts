import { describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "./content-security-policy.js";

function sources(directive: string): string[] | undefined {
  for (const part of CONTENT_SECURITY_POLICY.split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name === directive) return values;
  }
  return undefined;
}

describe("the renderer's Content-Security-Policy", () => {
  it("lets the page start the search worker from its own files, and from nowhere else", () => {
    expect(sources("worker-src"), "the table's search runs in a worker served by the app").toEqual([
      "'self'",
    ]);
  });

  it("keeps scripts to the app's own files, with no inline script or eval", () => {
    expect(sources("script-src")).toEqual(["'self'"]);
    expect(sources("default-src")).toEqual(["'none'"]);
  });
});
