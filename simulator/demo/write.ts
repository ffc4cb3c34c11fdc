import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DemoWorld } from "./generate.js";

export const DEMO_FILES = {
  fleet: "fleet.json",
  ledger: "ledger.json",
  config: "leasekeeper.config.json",
} as const;

/** Writes the fleet, ledger and config (never the keys) into `dir`, creating it if needed. */
export async function writeDemoWorld(dir: string, world: DemoWorld): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, unknown][] = [
    [DEMO_FILES.fleet, world.fleet],
    [DEMO_FILES.ledger, world.ledger],
    [DEMO_FILES.config, world.config],
  ];
  const written: string[] = [];
  for (const [name, content] of files) {
    const path = join(dir, name);
    await writeFile(path, `${JSON.stringify(content, null, 2)}\n`);
    written.push(path);
  }
  return written;
}
