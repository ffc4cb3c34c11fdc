import { readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The built renderer, as both hosts serve it: the Electron shell behind its `leasekeeper://app/` scheme
 * and the browser host over loopback HTTP. One resolver, so neither can be talked into reading a file
 * outside the renderer folder, and one table of content types.
 */

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json",
};

export const HTML_CONTENT_TYPE = CONTENT_TYPES[".html"]!;

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

/**
 * The file a URL path names inside `rendererDir`, or null when it would leave the folder, names the
 * folder itself, or cannot be decoded. `/` is the page.
 */
export function resolveRendererFile(rendererDir: string, urlPath: string): string | null {
  let relative: string;
  try {
    relative = decodeURIComponent(urlPath === "/" ? "/index.html" : urlPath);
  } catch {
    return null;
  }
  if (relative.includes("\0")) return null;
  const root = path.resolve(rendererDir);
  const file = path.resolve(root, `.${relative}`);
  return file.startsWith(`${root}${path.sep}`) ? file : null;
}

export interface RendererFile {
  body: Buffer;
  contentType: string;
}

/** The named file's bytes and type, or null when it is outside the folder or cannot be read. */
export async function readRendererFile(rendererDir: string, urlPath: string): Promise<RendererFile | null> {
  const file = resolveRendererFile(rendererDir, urlPath);
  if (file === null) return null;
  const body = await readFile(file).catch(() => null);
  return body === null ? null : { body, contentType: contentTypeOf(file) };
}
