import { FlagError, integerFlag, parseFlags, single } from "../cli-flags.js";
import { type DemoWorldOptions, generateDemoWorld, REALISTIC_WORLD } from "./generate.js";
import { writeDemoWorld } from "./write.js";

// `npm run demo:generate -- --size N --seed S --out DIR [--api-url URL] [--legacy-api-url URL] [--realistic]`

const USAGE = `usage: npm run demo:generate -- --size N --seed S --out DIR [options]
  --size N                 lease rows, 60 to 100000
  --seed S                 number or word; the same seed writes the same bytes
  --out DIR                where fleet.json, ledger.json, leasekeeper.config.json and paperclip.json go
  --api-url URL            where environments point now (default http://127.0.0.1:4510)
  --legacy-api-url URL     where they pointed before (default http://127.0.0.1:4511)
  --environments N         default max(4, size/200), at most 50
  --accounts N             CreateOS accounts, default 2
  --now ISO                the world's "now" (default 2026-11-30T12:00:00Z)
  --realistic              current Paperclip after months: shared environments, most rows history
  --paperclip-url URL      the config reads leases from a Paperclip instance there (the board key
                           variable is LEASEKEEPER_DEMO_PAPERCLIP_TOKEN) instead of ledger.json`;

function optionsFrom(argv: readonly string[]): { out: string; options: DemoWorldOptions } | "help" {
  const flags = parseFlags(argv, {
    values: [
      "size",
      "seed",
      "out",
      "api-url",
      "legacy-api-url",
      "environments",
      "accounts",
      "now",
      "paperclip-url",
    ],
    switches: ["help", "realistic"],
  });
  if (flags.switches.has("help")) return "help";
  const required = (name: string) => {
    const value = single(flags, name);
    if (value === undefined || value === "") throw new FlagError(`--${name} is required`);
    return value;
  };
  const size = integerFlag("size", required("size"), 50, 100_000);
  const seedText = required("seed");
  const out = required("out");
  const count = (name: string, min: number, max: number) => {
    const raw = single(flags, name);
    return raw === undefined ? undefined : integerFlag(name, raw, min, max);
  };
  return {
    out,
    options: {
      size,
      seed: /^\d+$/.test(seedText) ? Number(seedText) : seedText,
      apiUrl: single(flags, "api-url"),
      legacyApiUrl: single(flags, "legacy-api-url"),
      environments: count("environments", 3, 500),
      accounts: count("accounts", 2, 20),
      now: single(flags, "now"),
      paperclipUrl: single(flags, "paperclip-url"),
      ...(flags.switches.has("realistic") ? REALISTIC_WORLD : {}),
    },
  };
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof optionsFrom>;
  try {
    parsed = optionsFrom(process.argv.slice(2));
  } catch (cause) {
    process.stderr.write(`demo:generate: ${(cause as Error).message} (see --help)\n`);
    process.exitCode = 2;
    return;
  }
  if (parsed === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  try {
    const world = generateDemoWorld(parsed.options);
    const files = await writeDemoWorld(parsed.out, world);
    const untracked = world.planted.untracked.length;
    process.stdout.write(
      `wrote ${world.ledger.leases.length} leases in ${world.ledger.environments.length} environments, ` +
        `${world.fleet.accounts.length} accounts and ${untracked} untracked sandboxes:\n` +
        files.map((file) => `  ${file}\n`).join("") +
        "demo keys for the config's credentials:\n" +
        Object.entries(world.keys)
          .map(([name, key]) => `  export ${name}=${key}\n`)
          .join(""),
    );
  } catch (cause) {
    process.stderr.write(`demo:generate: ${(cause as Error).message}\n`);
    process.exitCode = 1;
  }
}

await main();
