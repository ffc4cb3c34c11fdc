import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DemoWorld } from "./generate.js";

export const DEMO_FILES = {
  fleet: "fleet.json",
  ledger: "ledger.json",
  config: "leasekeeper.config.json",
  /** The same rows as a Paperclip instance holds them: `npm run paperclip -- --world paperclip.json`. */
  paperclip: "paperclip.json",
} as const;

/** Writes the fleet, ledger, config and Paperclip world (never the keys) into `dir`, creating it if needed. */
export async function writeDemoWorld(dir: string, world: DemoWorld): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, unknown][] = [
    [DEMO_FILES.fleet, world.fleet],
    [DEMO_FILES.ledger, world.ledger],
    [DEMO_FILES.config, world.config],
    [DEMO_FILES.paperclip, world.paperclip],
  ];
  const written: string[] = [];
  for (const [name, content] of files) {
    const path = join(dir, name);
    await writeFile(path, `${JSON.stringify(content, null, 2)}\n`);
    written.push(path);
  }
  return written;
}
