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
  css: { raw: number; gzip: number };
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
      build: { outDir, emptyOutDir: true },
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
    return { buildMs: Math.round(buildMs), js, css };
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
  ];
}
