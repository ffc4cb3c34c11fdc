import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { contentTypeOf, readRendererFile, resolveRendererFile } from "./renderer-files.js";

function rendererFolder(): string {
  const parent = mkdtempSync(path.join(tmpdir(), "lk-renderer-"));
  const dir = path.join(parent, "renderer");
  mkdirSync(path.join(dir, "assets"), { recursive: true });
  writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>page</title>");
  writeFileSync(path.join(dir, "assets", "app.js"), "console.log(1)");
  writeFileSync(path.join(parent, "secret.txt"), "outside the renderer folder");
  return dir;
}

describe("the renderer files both hosts serve", () => {
  const dir = rendererFolder();

  it.each([
    ["the page for /", "/", "index.html"],
    ["an asset", "/assets/app.js", "assets/app.js"],
    ["an encoded asset name", "/assets/%61pp.js", "assets/app.js"],
  ])("resolves %s", (_, urlPath, expected) => {
    expect(resolveRendererFile(dir, urlPath)).toBe(path.join(dir, expected));
  });

  it.each([
    ["a parent-folder escape", "/../secret.txt"],
    ["an encoded parent-folder escape", "/%2e%2e/secret.txt"],
    ["an encoded separator escape", "/assets%2f..%2f..%2fsecret.txt"],
    ["a NUL byte", "/index.html%00.js"],
    ["an undecodable path", "/%E0%A4%A"],
  ])("refuses %s", (_, urlPath) => {
    expect(resolveRendererFile(dir, urlPath)).toBeNull();
  });

  it("reads a file with its content type, and nothing for a missing one", async () => {
    const page = await readRendererFile(dir, "/");
    expect(page?.contentType).toBe("text/html; charset=utf-8");
    expect(page?.body.toString()).toContain("<title>page</title>");
    expect(await readRendererFile(dir, "/missing.js")).toBeNull();
    expect(await readRendererFile(dir, "/../secret.txt")).toBeNull();
  });

  it("names unknown types as bytes, never as a page", () => {
    expect(contentTypeOf("/x/app.JS")).toBe("text/javascript; charset=utf-8");
    expect(contentTypeOf("/x/blob.bin")).toBe("application/octet-stream");
  });
});
