import writeFileAtomicLibrary from "write-file-atomic";

/**
 * Writes via a temporary file, fsync and a rename (write-file-atomic), so a crash leaves the old file or
 * the new one, never half, and a failed write removes its temporary file. The file is always the owner's
 * alone (0600): it may hold secrets, whatever mode an older copy had.
 */
export function writeFileAtomic(file: string, content: string): void {
  writeFileAtomicLibrary.sync(file, content, { mode: 0o600, fsync: true });
}
