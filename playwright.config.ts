import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, findChromium } from "./scripts/chromium.js";

// Always the system Chromium: Playwright's own browser download is not reachable everywhere we run.
const executablePath = findChromium() ?? undefined;

export default defineConfig({
  testDir: "e2e",
  // A folder of its own: Playwright empties its outputDir on every run, and test-results/ also holds the
  // vitest report and the reliability figures (test-results/reliability/) that docs/reliability.md quotes.
  outputDir: "test-results/playwright",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["json", { outputFile: "test-results/e2e.json" }]] : [["list"]],
  use: {
    headless: true,
    launchOptions: { executablePath, args: CHROMIUM_ARGS },
    trace: "off",
    screenshot: "only-on-failure",
  },
  projects: [
    { name: "browser", testDir: "e2e/browser" },
    { name: "electron", testDir: "e2e/electron" },
  ],
});
