import { CoreError } from "../errors/core-error.js";
import { answerFor } from "../errors/host-answers.js";
import { type CliCommand, type CliIo, EXIT } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { ioWithoutKeys } from "./io-without-keys.js";

/** Every command of commands/index.ts, by name, in its order. */
export function builtInCommands(): Map<string, CliCommand> {
  return new Map(COMMANDS.map((command) => [command.name, command]));
}

/** Runs `leasekeeper <command> [args]` and returns the exit code; never throws. */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  commands?: ReadonlyMap<string, CliCommand>,
): Promise<number> {
  commands ??= builtInCommands();
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
  // A failure's message, like any line a command writes, can carry a source's own words (a path, a
  // server's answer): once the command has opened the core, the keys it knows are taken out of both.
  const commandIo = ioWithoutKeys(io);
  try {
    return await command.run(args, commandIo);
  } catch (error) {
    const answer = answerFor(isParseArgsError(error) ? usageError(error) : error);
    const hint = answer.exitCode === EXIT.usage ? ` Run "leasekeeper ${name} --help".` : "";
    commandIo.stderr.write(`leasekeeper ${name}: ${oneLine(answer.message)}${hint}\n`);
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
