import { readdir } from "node:fs/promises";
import { type CliCommand, type CliIo, EXIT, UsageError } from "./command.js";

const COMMANDS_DIR = new URL("./commands/", import.meta.url);
const COMMAND_FILE = /^[a-z][a-z0-9-]*\.(ts|js|mjs)$/;

/** Every command in ./commands/, by name. */
export async function loadCommands(): Promise<Map<string, CliCommand>> {
  const files = (await readdir(COMMANDS_DIR)).filter(
    (file) => COMMAND_FILE.test(file) && !file.endsWith(".d.ts") && !/\.test\./.test(file),
  );
  const commands = new Map<string, CliCommand>();
  for (const file of files.sort()) {
    const module = (await import(new URL(file, COMMANDS_DIR).href)) as { command?: CliCommand };
    if (module.command !== undefined) commands.set(module.command.name, module.command);
  }
  return commands;
}

/** Runs `leasekeeper <command> [args]` and returns the exit code; never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const commands = await loadCommands();
  const [name, ...args] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(overview(commands));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = commands.get(name);
  if (command === undefined) {
    io.stderr.write(`leasekeeper: unknown command "${name}". Run "leasekeeper --help" for the list.\n`);
    return EXIT.usage;
  }
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout.write(`${command.usage.trimEnd()}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr.write(`leasekeeper ${name}: ${oneLine(error)} Run "leasekeeper ${name} --help".\n`);
      return EXIT.usage;
    }
    io.stderr.write(`leasekeeper ${name}: ${oneLine(error)}\n`);
    return EXIT.failed;
  }
}

function overview(commands: Map<string, CliCommand>): string {
  const width = Math.max(0, ...[...commands.keys()].map((name) => name.length));
  const rows = [...commands.values()].map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: leasekeeper <command> [options]\n\nCommands:\n${rows.join("\n")}\n`;
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

/** The first line of an error's message: every message the core raises is one already. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n", 1)[0]!.trim();
}
