import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";

/** Writes via a temporary file and a rename, so a crash leaves the old file or the new one, never half. */
export function writeFileAtomic(file: string, content: string): void {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(temporary, "wx", 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}
