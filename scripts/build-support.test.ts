import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startBundleNeedsBuild } from "./build-support.js";

// `tsx scripts/start.ts` rebuilds the start bundle on the same grounds as `npm start` (scripts/launch.mjs):
// a newer source or a newer build config. Checked on a checkout laid out in a temporary folder.

const HOUR = 60 * 60;
const BUILT_AT = 1_800_000_000;

describe("the start bundle's staleness", () => {
  let root: string;

  const file = (relative: string, at: number) => {
    const full = path.join(root, relative);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, "");
    utimesSync(full, at, at);
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "leasekeeper-build-support-"));
    for (const source of ["electron/main.ts", "shared/index.ts", "simulator/index.ts", "scripts/demo.ts"])
      file(source, BUILT_AT - HOUR);
    file("vite.electron.config.ts", BUILT_AT - HOUR);
    file("dist-electron/start.mjs", BUILT_AT);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("keeps a bundle newer than its sources and its build config", () => {
    expect(startBundleNeedsBuild(root)).toBe(false);
  });

  it("rebuilds when the build config is newer than the bundle (it decides the packages inlined)", () => {
    file("vite.electron.config.ts", BUILT_AT + HOUR);
    expect(startBundleNeedsBuild(root), "a config edited after the build must rebuild the bundle").toBe(true);
  });

  it("rebuilds when a source is newer, but not for a newer test", () => {
    file("shared/domain/verdict.test.ts", BUILT_AT + HOUR);
    expect(startBundleNeedsBuild(root)).toBe(false);
    file("simulator/fleet.ts", BUILT_AT + HOUR);
    expect(startBundleNeedsBuild(root)).toBe(true);
  });

  it("builds when there is no bundle", () => {
    rmSync(path.join(root, "dist-electron"), { recursive: true });
    expect(startBundleNeedsBuild(root)).toBe(true);
  });
});
