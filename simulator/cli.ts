import { FlagError, integerFlag, parseFlags, single } from "./cli-flags.js";
import { FleetError } from "./fleet.js";
import { type SimulatorOptions, startSimulator } from "./simulator.js";

// `npm run simulator -- --fleet FILE [--port 0] [--alias-port N]... [--rate-limit 300] [--transition-ms 300]`
// stdout carries exactly one line, the URL, once the simulator answers; everything else is stderr,
// so a script can read the URL with `head -n1`.

const USAGE = `usage: npm run simulator -- --fleet FILE [options]
  --fleet FILE            seed world (JSON; see simulator/fleet.ts)
  --port N                port on 127.0.0.1 (default 0: any free port)
  --alias-port N          another port serving the same world (repeatable)
  --rate-limit N          requests per minute per client IP (default 300; 0 = off)
  --rate-limit-burst N    bucket size (default: the rate limit)
  --transition-ms N       time for creating/pausing/resuming/destroying (default 300)
  --id-prefix sb-|sb_     separator of new sandbox ids (default sb-)
  --seed N                seed for fault probabilities (default 1)`;

function optionsFrom(argv: readonly string[]): SimulatorOptions | "help" {
  const flags = parseFlags(argv, {
    values: [
      "fleet",
      "port",
      "alias-port",
      "rate-limit",
      "rate-limit-burst",
      "transition-ms",
      "id-prefix",
      "seed",
    ],
    repeatable: ["alias-port"],
    switches: ["help"],
  });
  if (flags.switches.has("help")) return "help";
  const fleetFile = single(flags, "fleet");
  if (!fleetFile) throw new FlagError("--fleet FILE is required");
  const number = (name: string, min: number, max: number) => {
    const raw = single(flags, name);
    return raw === undefined ? undefined : integerFlag(name, raw, min, max);
  };
  const idPrefix = single(flags, "id-prefix");
  if (idPrefix !== undefined && idPrefix !== "sb-" && idPrefix !== "sb_") {
    throw new FlagError(`--id-prefix must be sb- or sb_, got "${idPrefix}"`);
  }
  return {
    fleetFile,
    port: number("port", 0, 65_535),
    aliasPorts: (flags.values.get("alias-port") ?? []).map((raw) =>
      integerFlag("alias-port", raw, 0, 65_535),
    ),
    rateLimitPerMinute: number("rate-limit", 0, 1_000_000),
    rateLimitBurst: number("rate-limit-burst", 1, 1_000_000),
    transitionMs: number("transition-ms", 0, 3_600_000),
    idPrefix,
    seed: number("seed", 0, 2 ** 32 - 1),
  };
}

async function main(): Promise<void> {
  let options: SimulatorOptions | "help";
  try {
    options = optionsFrom(process.argv.slice(2));
  } catch (cause) {
    return exit(2, `simulator: ${(cause as Error).message} (see --help)`);
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  try {
    simulator = await startSimulator(options);
  } catch (cause) {
    return exit(cause instanceof FleetError ? 2 : 1, `simulator: ${(cause as Error).message}`);
  }
  process.stdout.write(`CreateOS simulator listening on ${simulator.url}\n`);
  for (const alias of simulator.aliasUrls) process.stderr.write(`also serving the same world on ${alias}\n`);
  const shutdown = () => {
    simulator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

function exit(code: number, message: string): void {
  process.stderr.write(`${message.replace(/\s*\n\s*/g, " ")}\n`);
  process.exitCode = code;
}

await main();
