/** What a command run through /exec answers. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  exit_code: number;
  error?: string;
}

// Just enough of a shell for `bash -lc "mkdir -p -- /paperclip-workspace && cat …"`: words with
// quotes and backslashes, joined by `&&`, `||`, `;` or newlines. Pipes, redirections, variables,
// globs and subshells are refused with exit 2 rather than half-run.

type Token = { word: string } | { operator: "&&" | "||" | ";" };

export class UnsupportedShellSyntax extends Error {}

export function tokenize(script: string): Token[] {
  const tokens: Token[] = [];
  let word = "";
  let inWord = false;
  const endWord = () => {
    if (inWord) tokens.push({ word });
    word = "";
    inWord = false;
  };
  for (let i = 0; i < script.length; i++) {
    const char = script[i] as string;
    const next = script[i + 1];
    if (char === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) throw new UnsupportedShellSyntax("unterminated quote");
      word += script.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (char === '"') {
      inWord = true;
      for (i += 1; ; i++) {
        const inner = script[i];
        if (inner === undefined) throw new UnsupportedShellSyntax("unterminated quote");
        if (inner === '"') break;
        if (inner === "$" || inner === "`") throw new UnsupportedShellSyntax(`expansion (${inner})`);
        if (inner === "\\" && /["\\$`]/.test(script[i + 1] ?? "")) {
          i += 1;
          word += script[i];
        } else {
          word += inner;
        }
      }
    } else if (char === "\\") {
      if (next !== undefined && next !== "\n") word += next;
      inWord = inWord || next !== "\n";
      i += 1;
    } else if (char === " " || char === "\t") {
      endWord();
    } else if (char === "\n" || char === ";") {
      endWord();
      tokens.push({ operator: ";" });
    } else if ((char === "&" || char === "|") && next === char) {
      endWord();
      tokens.push({ operator: char === "&" ? "&&" : "||" });
      i += 1;
    } else if ("|&<>$`(){}*?[]~#".includes(char)) {
      throw new UnsupportedShellSyntax(`"${char}"`);
    } else {
      word += char;
      inWord = true;
    }
  }
  endWord();
  return tokens;
}

/** Runs each simple command through `runCommand`, honouring `&&` and `||` like a shell. */
export function runScript(script: string, runCommand: (words: string[]) => ExecResult): ExecResult {
  let tokens: Token[];
  try {
    tokens = tokenize(script);
  } catch (cause) {
    const reason = cause instanceof UnsupportedShellSyntax ? cause.message : String(cause);
    return { stdout: "", stderr: `simulator shell: unsupported syntax: ${reason}\n`, exit_code: 2 };
  }
  let stdout = "";
  let stderr = "";
  let exitCode = 0;
  let words: string[] = [];
  let skip = false;
  const flush = () => {
    if (words.length > 0 && !skip) {
      const result = runCommand(words);
      stdout += result.stdout;
      stderr += result.stderr;
      exitCode = result.exit_code;
    }
    words = [];
  };
  for (const token of tokens) {
    if ("word" in token) {
      words.push(token.word);
      continue;
    }
    flush();
    if (token.operator === "&&") skip = exitCode !== 0;
    else if (token.operator === "||") skip = exitCode === 0;
    else skip = false;
  }
  flush();
  return { stdout, stderr, exit_code: exitCode };
}
