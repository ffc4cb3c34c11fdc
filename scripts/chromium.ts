import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Finds a Chromium for Playwright. Playwright's own browser download cannot work on machines without
 * access to its CDN, so the system Chromium comes first, then a Playwright-managed one, then an
 * `apt-get install` when we are root on Debian, and otherwise a one-line instruction.
 */
const SYSTEM_CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

/** Flags for a headless Chromium on a machine with no network but loopback. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export function findChromium(): string | null {
  const fromEnv = process.env.LEASEKEEPER_CHROMIUM;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const candidate of SYSTEM_CANDIDATES) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

function canInstallWithApt(): boolean {
  return process.platform === "linux" && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
}

/** Returns a Chromium path, installing Debian's package when possible; throws a one-line reason otherwise. */
export function ensureChromium(): string {
  const found = findChromium();
  if (found) return found;
  if (canInstallWithApt()) {
    console.log("No Chromium found: installing Debian's chromium package with apt-get.");
    spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
    const install = spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit" });
    const installed = findChromium();
    if (install.status === 0 && installed) return installed;
  }
  throw new Error(
    "No Chromium found: install one (Debian: `sudo apt-get install chromium`) or set LEASEKEEPER_CHROMIUM=/path/to/chromium.",
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = ensureChromium();
  const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
  console.log(`${path} (${version})`);
}
