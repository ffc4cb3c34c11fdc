import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "./write-file-atomic.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "lk-atomic-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("atomic file writes", () => {
  it("writes a new file the owner alone can read, and leaves nothing else", () => {
    const file = path.join(dir, "settings.json");
    writeFileAtomic(file, '{"a":1}\n');
    expect(readFileSync(file, "utf8")).toBe('{"a":1}\n');
    expect(readdirSync(dir)).toEqual(["settings.json"]);
    if (process.platform !== "win32") expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("replaces a file whole, making it 0600 even if the old copy was readable by others", () => {
    const file = path.join(dir, "settings.json");
    writeFileSync(file, "old");
    chmodSync(file, 0o644);
    writeFileAtomic(file, "new");
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(readdirSync(dir)).toEqual(["settings.json"]);
    if (process.platform !== "win32") expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("throws and leaves no temporary file when the rename fails", () => {
    const target = path.join(dir, "taken");
    mkdirSync(path.join(target, "inside"), { recursive: true });
    expect(() => writeFileAtomic(target, "content")).toThrow();
    expect(readdirSync(dir)).toEqual(["taken"]);
    expect(readdirSync(target)).toEqual(["inside"]);
  });

  it("throws and leaves nothing when the folder is missing", () => {
    expect(() => writeFileAtomic(path.join(dir, "missing", "file.json"), "content")).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});
