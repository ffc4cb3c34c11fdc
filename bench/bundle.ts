// Benchmark: the renderer's JavaScript as vite builds it for production, raw and gzipped.
//   npm run bench -- bundle
// Built into a temporary folder so a running host or end-to-end test serving dist/renderer is left alone.
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT } from "./lib/processes.js";
import type { Figure } from "./lib/report.js";

export interface BundleBenchResult {
  buildMs: number;
  js: { raw: number; gzip: number; files: { file: string; raw: number; gzip: number }[] };
  /** The page's first script, the app it loads at once and their static imports: what runs before the first screen. */
  firstScreen: { raw: number; gzip: number; files: string[] };
  css: { raw: number; gzip: number };
}

/** One chunk of vite's build manifest (`build.manifest`), keyed there by its source. */
export interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

/**
 * The script files the first screen runs: the page's entry, the chunks its first script imports at
 * once (statically, or by the one dynamic import with which it loads the app after asking for the
 * inventory), and their static imports. A view the app imports when first opened is not among them.
 */
export function firstScreenScripts(manifest: Record<string, ManifestChunk>): string[] {
  const entries = Object.entries(manifest).filter(([, chunk]) => chunk.isEntry === true);
  if (entries.length !== 1) throw new Error(`the build's manifest names ${entries.length} entries, not one`);
  const [entryKey, entry] = entries[0] as [string, ManifestChunk];
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (chunk === undefined) throw new Error(`the build's manifest names ${key}, which it does not hold`);
    if (files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entryKey);
  for (const loadedAtOnce of entry.dynamicImports ?? []) visit(loadedAtOnce);
  return [...files];
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
    ),
  );
  return nested.flat();
}

export async function runBundleBench(): Promise<BundleBenchResult> {
  const outDir = await mkdtemp(path.join(tmpdir(), "leasekeeper-bench-bundle-"));
  try {
    const { build } = await import("vite");
    const started = performance.now();
    await build({
      configFile: path.join(ROOT, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir, emptyOutDir: true, manifest: true },
    });
    const buildMs = performance.now() - started;
    const files = await filesUnder(outDir);
    const js: BundleBenchResult["js"] = { raw: 0, gzip: 0, files: [] };
    const css = { raw: 0, gzip: 0 };
    for (const file of files) {
      if (!/\.(m?js|css)$/.test(file)) continue;
      const content = await readFile(file);
      const raw = (await stat(file)).size;
      const gzip = gzipSync(content, { level: 9 }).byteLength;
      if (file.endsWith(".css")) {
        css.raw += raw;
        css.gzip += gzip;
      } else {
        js.raw += raw;
        js.gzip += gzip;
        js.files.push({ file: path.relative(outDir, file), raw, gzip });
      }
    }
    const manifest = JSON.parse(await readFile(path.join(outDir, ".vite", "manifest.json"), "utf8"));
    const firstScreenFiles = firstScreenScripts(manifest);
    const firstScreen = { raw: 0, gzip: 0, files: firstScreenFiles };
    for (const named of firstScreenFiles) {
      const file = js.files.find((entry) => entry.file === path.normalize(named));
      if (file === undefined) throw new Error(`the manifest names ${named}, which the build did not write`);
      firstScreen.raw += file.raw;
      firstScreen.gzip += file.gzip;
    }
    return { buildMs: Math.round(buildMs), js, firstScreen, css };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

const kB = (bytes: number) => Math.round(bytes / 102.4) / 10;

export function bundleFigures(result: BundleBenchResult): Figure[] {
  return [
    {
      bench: "bundle",
      name: "renderer JS, gzipped",
      value: kB(result.js.gzip),
      unit: "kB",
      reference: { label: "raw", value: kB(result.js.raw) },
      target: { kind: "max", value: 400, text: "< 400 kB gz" },
      note: `vite production build, gzip -9; ${result.js.files.length} file(s); CSS besides: ${kB(result.css.raw)} kB raw, ${kB(result.css.gzip)} kB gz`,
    },
    {
      bench: "bundle",
      name: "renderer JS the first screen loads, gzipped",
      value: kB(result.firstScreen.gzip),
      unit: "kB",
      reference: { label: "raw", value: kB(result.firstScreen.raw) },
      target: null,
      note: `the ${result.firstScreen.files.length} script(s) of the page's first script, the app it loads at once and their static imports; every view but the lease table is fetched when first opened, and the search worker is a file of its own`,
    },
  ];
}
