import { readdir } from "node:fs/promises";
import { CoreError } from "../errors/core-error.js";
import { answerFor } from "../errors/host-answers.js";
import { type CliCommand, type CliIo, EXIT } from "./command.js";

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
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  commands?: ReadonlyMap<string, CliCommand>,
): Promise<number> {
  commands ??= await loadCommands();
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
    const answer = answerFor(isParseArgsError(error) ? usageError(error) : error);
    const hint = answer.exitCode === EXIT.usage ? ` Run "leasekeeper ${name} --help".` : "";
    io.stderr.write(`leasekeeper ${name}: ${oneLine(answer.message)}${hint}\n`);
    return answer.exitCode;
  }
}

function overview(commands: ReadonlyMap<string, CliCommand>): string {
  const width = Math.max(0, ...[...commands.keys()].map((name) => name.length));
  const rows = [...commands.values()].map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: leasekeeper <command> [options]\n\nCommands:\n${rows.join("\n")}\n`;
}

function isParseArgsError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

/** Node's own flag parser quotes only the flag or argument the operator typed, so its sentence is shown. */
function usageError(error: Error): CoreError<"usage"> {
  return new CoreError("usage", "bad-arguments", error.message);
}

/** Every message the core raises is one line already; a terminal gets no more than that. */
function oneLine(message: string): string {
  return message.split("\n", 1)[0]!.trim();
}
