import { readFile } from "node:fs/promises";
import { FlagError, integerFlag, parseFlags, single } from "../cli-flags.js";
import type { BoardKey, PaperclipAuth } from "./auth.js";
import { startPaperclip } from "./server.js";
import { PaperclipWorldError } from "./world.js";

// `npm run paperclip -- --world FILE [--port N] [--admin-key-env NAME] [--board-key-env NAME]`
// stdout carries exactly one line, the URL, once the stand-in answers; everything else is stderr.
// Keys come from environment variables, never from a flag, so they stay out of `ps` and shell history.

const USAGE = `usage: npm run paperclip -- --world FILE [options]
  --world FILE            companies, environments and leases (JSON; see simulator/paperclip/world.ts)
  --port N                port on 127.0.0.1 (default 0: any free port)
  --admin-key-env NAME    variable holding an instance admin's board API key
  --board-key-env NAME    variable holding a non-admin board API key (member of every company)
                          with neither, the instance runs local_trusted: no authentication`;

async function main(): Promise<void> {
  let worldFile: string;
  let port: number | undefined;
  let auth: PaperclipAuth;
  let world: unknown;
  try {
    const flags = parseFlags(process.argv.slice(2), {
      values: ["world", "port", "admin-key-env", "board-key-env"],
      switches: ["help"],
    });
    if (flags.switches.has("help")) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    worldFile = single(flags, "world") ?? "";
    if (!worldFile) throw new FlagError("--world FILE is required");
    const rawPort = single(flags, "port");
    port = rawPort === undefined ? undefined : integerFlag("port", rawPort, 0, 65_535);
    world = JSON.parse(await readFile(worldFile, "utf8"));
    const companyIds = Array.isArray((world as { companies?: unknown }).companies)
      ? (world as { companies: { id?: unknown }[] }).companies.flatMap((company) =>
          typeof company?.id === "string" ? [company.id] : [],
        )
      : [];
    const keys: BoardKey[] = [];
    for (const [flag, instanceAdmin] of [
      ["admin-key-env", true],
      ["board-key-env", false],
    ] as const) {
      const name = single(flags, flag);
      if (name === undefined) continue;
      const token = process.env[name]?.trim();
      if (!token) throw new FlagError(`--${flag}: the variable ${name} is not set`);
      keys.push({ token, instanceAdmin, companyIds });
    }
    auth = keys.length > 0 ? { mode: "authenticated", boardKeys: keys } : { mode: "local_trusted" };
  } catch (cause) {
    return exit(2, `paperclip: ${(cause as Error).message} (see --help)`);
  }
  try {
    const standIn = await startPaperclip({ world, auth, ...(port !== undefined ? { port } : {}) });
    process.stdout.write(`Paperclip stand-in listening on ${standIn.url}\n`);
    process.stderr.write(`auth: ${auth.mode}\n`);
    const shutdown = () => void standIn.stop().then(() => process.exit(0));
    process.once("SIGINT", shutdown);
    process.once("SIGTERM", shutdown);
  } catch (cause) {
    return exit(cause instanceof PaperclipWorldError ? 2 : 1, `paperclip: ${(cause as Error).message}`);
  }
}

function exit(code: number, message: string): void {
  process.stderr.write(`${message.replace(/\s*\n\s*/g, " ")}\n`);
  process.exitCode = code;
}

await main();
