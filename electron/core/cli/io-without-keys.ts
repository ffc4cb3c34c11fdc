import type { CliIo } from "./command.js";

type Writable = CliIo["stdout"];

/**
 * The io a command runs with: once the command has opened the core (which hands its redactor over
 * through `keysInUse`), every write to stdout and stderr has the keys it knows taken out. A line a
 * command builds itself can carry anything the operator or a source gave it (an argument echoed back,
 * a source's words), so the one place every line passes is where the keys are taken out, not each
 * command remembering to.
 */
export function ioWithoutKeys(io: CliIo): CliIo {
  const redactors: ((text: string) => string)[] = [];
  const redact = (text: string) => redactors.reduce((out, each) => each(out), text);
  return {
    ...io,
    stdout: writingWithoutKeys(io.stdout, redact),
    stderr: writingWithoutKeys(io.stderr, redact),
    keysInUse: (redactor) => redactors.push(redactor),
  };
}

function writingWithoutKeys(
  stream: Writable,
  redact: (text: string) => string,
): Writable & { readonly isTTY: boolean | undefined } {
  const drains = stream as { once?(event: "drain", listener: () => void): unknown };
  return {
    write: (text: string) => stream.write(redact(text)),
    // A job's progress bar is drawn only on a terminal: the wrapped stream is asked whether it is one.
    get isTTY() {
      return (stream as { isTTY?: boolean }).isTTY;
    },
    // A long export waits for a pipe to take what it was given before it reads more: the wrapped
    // stream says when it has.
    ...(typeof drains.once === "function"
      ? { once: (event: "drain", listener: () => void) => drains.once!(event, listener) }
      : {}),
  };
}
