import { posix } from "node:path";
import type { Workspace } from "../state/workspace.js";
import { type ExecResult, runScript } from "./shell.js";

export type { ExecResult } from "./shell.js";

// The handful of programs a lease console and the Paperclip plugin run through /exec: reading the
// workspace marker (`/bin/cat`), making the workspace (`mkdir -p --`), cleaning up (`rm -f`), and
// the probe's `/bin/echo`. Anything else is "command not found", never a pretend success.

type Program = (args: string[], workspace: Workspace) => ExecResult;

const ok = (stdout = ""): ExecResult => ({ stdout, stderr: "", exit_code: 0 });

/** Splits `-pf --` style flags from operands; `--` ends the flags. */
function options(args: string[], known: string): { flags: Set<string>; operands: string[]; bad?: string } {
  const flags = new Set<string>();
  const operands: string[] = [];
  let flagsDone = false;
  for (const arg of args) {
    if (!flagsDone && arg === "--") {
      flagsDone = true;
    } else if (!flagsDone && arg.startsWith("-") && arg.length > 1) {
      for (const flag of arg.slice(1)) {
        if (!known.includes(flag)) return { flags, operands, bad: flag };
        flags.add(flag);
      }
    } else {
      operands.push(arg);
    }
  }
  return { flags, operands };
}

function usage(program: string, message: string): ExecResult {
  return { stdout: "", stderr: `${program}: ${message}\n`, exit_code: 1 };
}

const cat: Program = (args, workspace) => {
  const { operands, bad } = options(args, "");
  if (bad) return usage("cat", `invalid option -- '${bad}'`);
  let stdout = "";
  let stderr = "";
  for (const path of operands) {
    const content = workspace.read(path);
    if (content) stdout += content.toString("utf8");
    else if (workspace.isDirectory(path)) stderr += `cat: ${path}: Is a directory\n`;
    else stderr += `cat: ${path}: No such file or directory\n`;
  }
  return { stdout, stderr, exit_code: stderr ? 1 : 0 };
};

const echo: Program = (args) => {
  const noNewline = args[0] === "-n";
  const words = noNewline ? args.slice(1) : args;
  return ok(words.join(" ") + (noNewline ? "" : "\n"));
};

const mkdir: Program = (args, workspace) => {
  const { flags, operands, bad } = options(args, "p");
  if (bad) return usage("mkdir", `invalid option -- '${bad}'`);
  if (operands.length === 0) return usage("mkdir", "missing operand");
  let stderr = "";
  for (const path of operands) {
    const outcome = workspace.mkdir(path, flags.has("p"));
    if (outcome === "exists" || outcome === "file-in-the-way") {
      stderr += `mkdir: cannot create directory '${path}': File exists\n`;
    } else if (outcome === "missing-parent") {
      stderr += `mkdir: cannot create directory '${path}': No such file or directory\n`;
    }
  }
  return { stdout: "", stderr, exit_code: stderr ? 1 : 0 };
};

const rm: Program = (args, workspace) => {
  const { flags, operands, bad } = options(args, "frR");
  if (bad) return usage("rm", `invalid option -- '${bad}'`);
  const force = flags.has("f");
  if (operands.length === 0) return force ? ok() : usage("rm", "missing operand");
  let stderr = "";
  for (const path of operands) {
    const outcome = workspace.remove(path, flags.has("r") || flags.has("R"));
    if (outcome === "missing" && !force) stderr += `rm: cannot remove '${path}': No such file or directory\n`;
    if (outcome === "is-directory") stderr += `rm: cannot remove '${path}': Is a directory\n`;
  }
  return { stdout: "", stderr, exit_code: stderr ? 1 : 0 };
};

const PROGRAMS: Record<string, Program> = {
  cat,
  echo,
  mkdir,
  rm,
  true: () => ok(),
  false: () => ({ stdout: "", stderr: "", exit_code: 1 }),
};

const SHELLS = new Set(["bash", "sh"]);

/** Runs `cmd args` as exec does: no shell unless the command is one, found by its basename. */
export function run(cmd: string, args: string[], workspace: Workspace): ExecResult {
  const program = posix.basename(cmd);
  if (SHELLS.has(program)) return runShell(program, args, workspace);
  const found = PROGRAMS[program];
  if (found) return found(args, workspace);
  // The agent could not start the process at all: that is `error`, not a shell's 127 [I].
  return {
    stdout: "",
    stderr: "",
    exit_code: 127,
    error: `exec: "${cmd}": executable file not found in $PATH`,
  };
}

/** `bash -c SCRIPT` / `bash -lc SCRIPT`; the login flag changes nothing here. */
function runShell(shell: string, args: string[], workspace: Workspace): ExecResult {
  const flag = args[0] ?? "";
  const script = args[1];
  if (!/^-l?c$|^-cl$/.test(flag) || script === undefined) {
    return usage(shell, "the simulator runs scripts only as -c or -lc SCRIPT");
  }
  return runScript(script, (words) => {
    const [name = "", ...rest] = words;
    const found = PROGRAMS[posix.basename(name)];
    if (found) return found(rest, workspace);
    return { stdout: "", stderr: `${shell}: line 1: ${name}: command not found\n`, exit_code: 127 };
  });
}
