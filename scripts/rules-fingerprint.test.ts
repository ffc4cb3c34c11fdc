import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { RULES_FINGERPRINT } from "../electron/core/inventory/judge/rules-fingerprint.js";
import {
  committedFingerprint,
  computeRulesFingerprint,
  FINGERPRINT_FILE,
  judgingModules,
} from "./rules-fingerprint.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const copies: string[] = [];

/** A copy of the sources the fingerprint reads, to edit without touching the checkout. */
function copyOfSources(): string {
  const root = mkdtempSync(path.join(tmpdir(), "lk-fingerprint-"));
  copies.push(root);
  for (const dir of ["electron", "shared", "renderer"])
    cpSync(path.join(ROOT, dir), path.join(root, dir), { recursive: true });
  return root;
}

afterAll(() => {
  for (const root of copies) rmSync(root, { recursive: true, force: true });
});

describe("the rules' fingerprint", () => {
  it("is what the committed file holds (run `npm run rules:fingerprint` when this fails)", () => {
    expect(committedFingerprint()).toBe(computeRulesFingerprint());
    expect(RULES_FINGERPRINT).toBe(computeRulesFingerprint());
  });

  it("reads the rules, the evidence a row is judged from and the store's row columns, not itself", () => {
    const modules = judgingModules();
    expect(modules).toEqual(
      expect.arrayContaining([
        "shared/domain/judge-row.ts",
        "electron/core/inventory/judge/judged-scan.ts",
        "electron/core/store/inventory-rows/scan-write.ts",
        "electron/core/store/inventory-rows/row-columns.ts",
      ]),
    );
    expect(modules).not.toContain(FINGERPRINT_FILE);
    expect(modules.some((file) => file.startsWith("renderer/"))).toBe(false);
  });

  it("changes when a rule changes, and not when code the judging never reaches does", () => {
    const root = copyOfSources();
    const before = computeRulesFingerprint(root);
    expect(before).toBe(computeRulesFingerprint());

    const renderer = path.join(root, "renderer", "src", "main.tsx");
    writeFileSync(renderer, `${readFileSync(renderer, "utf8")}\n// unrelated\n`);
    expect(computeRulesFingerprint(root)).toBe(before);

    const rule = path.join(root, "shared", "domain", "judge-row.ts");
    writeFileSync(
      rule,
      readFileSync(rule, "utf8").replace("export function judgeRow", "export  function judgeRow"),
    );
    expect(computeRulesFingerprint(root)).not.toBe(before);
  });

  it("is the same for a checkout with CRLF line endings", () => {
    const root = copyOfSources();
    const rule = path.join(root, "shared", "domain", "judge-row.ts");
    writeFileSync(rule, readFileSync(rule, "utf8").replace(/\n/g, "\r\n"));
    expect(computeRulesFingerprint(root)).toBe(computeRulesFingerprint());
  });

  it("says which import it cannot follow", () => {
    const root = copyOfSources();
    const keeper = path.join(root, "electron", "core", "inventory", "worker", "inventory-keeper.ts");
    writeFileSync(keeper, `import "./no-such-module.js";\n${readFileSync(keeper, "utf8")}`);
    expect(() => computeRulesFingerprint(root)).toThrow(
      /inventory-keeper\.ts imports \.\/no-such-module\.js/,
    );
  });
});
