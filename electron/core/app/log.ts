import { SecretRedactor } from "../redaction/redactor.js";

/**
 * The main side's log. Every line passes through a redactor that knows the keys currently in use and
 * replaces each (and its base64, hex and URL-encoded forms) before it is written, so that even an error
 * from a library that echoed a request header cannot put a key into a log file or a terminal.
 */
export interface Logger {
  info(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

export interface RedactingLogger extends Logger {
  /** The redactor every line passes through; the app also uses it on answers and events. */
  readonly redactor: SecretRedactor;
  /** Replaces the set of values to redact (called whenever a key is set, cleared or first read). */
  setSecrets(values: readonly string[]): void;
  redact(text: string): string;
}

function formatDetail(detail: unknown): string {
  if (detail === undefined) return "";
  if (detail instanceof Error)
    return ` ${detail.name}: ${detail.message}${detail.stack ? `\n${detail.stack}` : ""}`;
  try {
    return ` ${JSON.stringify(detail)}`;
  } catch {
    return ` ${String(detail)}`;
  }
}

export function createLogger(
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): RedactingLogger {
  const redactor = new SecretRedactor();
  const line = (level: string, message: string, detail: unknown) =>
    write(redactor.redact(`${new Date().toISOString()} ${level} ${message}${formatDetail(detail)}`));
  return {
    redactor,
    info: (message, detail) => line("info", message, detail),
    warn: (message, detail) => line("warn", message, detail),
    error: (message, detail) => line("error", message, detail),
    setSecrets: (values) => redactor.set(values),
    redact: (text) => redactor.redact(text),
  };
}

/** For tests: a logger that keeps its (redacted) lines. */
export function memoryLogger(): RedactingLogger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger((line) => lines.push(line));
  return Object.assign(logger, { lines });
}
