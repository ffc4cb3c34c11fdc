// Draws the page's icon (renderer/public/favicon.png) from its source (renderer/icon/favicon.svg) with the
// system Chromium, at 64 px so that it stays sharp on a high-density screen. Run it after changing the
// drawing:  npx tsx scripts/render-favicon.ts
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { chromium } from "@playwright/test";
import { ROOT } from "./build-support.js";
import { CHROMIUM_ARGS, ensureChromium } from "./chromium.js";

const SIZE = 64;
const SOURCE = path.join(ROOT, "renderer", "icon", "favicon.svg");
const TARGET = path.join(ROOT, "renderer", "public", "favicon.png");

const svg = await readFile(SOURCE, "utf8");
const browser = await chromium.launch({ executablePath: ensureChromium(), args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
  await page.setContent(
    `<body style="margin:0">${svg.replace("<svg ", `<svg width="${SIZE}" height="${SIZE}" `)}</body>`,
  );
  const png = await page.screenshot({
    omitBackground: true,
    clip: { x: 0, y: 0, width: SIZE, height: SIZE },
  });
  await writeFile(TARGET, png);
  console.log(`wrote ${path.relative(ROOT, TARGET)} (${png.length} bytes)`);
} finally {
  await browser.close();
}
