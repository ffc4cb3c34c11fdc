import { posix } from "node:path";

// The guest filesystem, as far as exec and the files API can see it: files with bytes, and
// directories that exist because they were made or because a file lives below them.

const BASE_DIRECTORIES = ["/", "/bin", "/etc", "/home", "/root", "/tmp", "/usr", "/var"];

export type MkdirOutcome = "made" | "exists" | "missing-parent" | "file-in-the-way";
export type RemoveOutcome = "removed" | "missing" | "is-directory";

export class Workspace {
  private readonly files = new Map<string, Buffer>();
  private readonly directories = new Set<string>(BASE_DIRECTORIES);

  constructor(files: Record<string, string | Buffer> = {}) {
    for (const [path, content] of Object.entries(files)) this.write(path, content);
  }

  read(path: string): Buffer | undefined {
    return this.files.get(normalize(path));
  }

  isFile(path: string): boolean {
    return this.files.has(normalize(path));
  }

  isDirectory(path: string): boolean {
    return this.directories.has(normalize(path));
  }

  /** Writing a file makes its parent directories, as the guest agent does for uploads [I]. */
  write(path: string, content: string | Buffer): void {
    const target = normalize(path);
    this.files.set(target, Buffer.isBuffer(content) ? content : Buffer.from(content));
    for (let dir = posix.dirname(target); !this.directories.has(dir); dir = posix.dirname(dir)) {
      this.directories.add(dir);
    }
  }

  mkdir(path: string, parents: boolean): MkdirOutcome {
    const target = normalize(path);
    if (this.files.has(target)) return "file-in-the-way";
    if (this.directories.has(target)) return parents ? "made" : "exists";
    const chain: string[] = [];
    let dir = target;
    while (!this.directories.has(dir)) {
      if (this.files.has(dir)) return "file-in-the-way";
      chain.push(dir);
      dir = posix.dirname(dir);
    }
    if (chain.length > 1 && !parents) return "missing-parent";
    for (const made of chain) this.directories.add(made);
    return "made";
  }

  remove(path: string, recursive: boolean): RemoveOutcome {
    const target = normalize(path);
    if (this.files.delete(target)) return "removed";
    if (!this.directories.has(target)) return "missing";
    if (!recursive) return "is-directory";
    const prefix = target === "/" ? "/" : `${target}/`;
    for (const file of [...this.files.keys()]) if (file.startsWith(prefix)) this.files.delete(file);
    for (const dir of [...this.directories]) if (dir.startsWith(prefix)) this.directories.delete(dir);
    if (target !== "/") this.directories.delete(target);
    return "removed";
  }

  filePaths(): string[] {
    return [...this.files.keys()].sort();
  }

  clear(): void {
    this.files.clear();
    this.directories.clear();
    for (const dir of BASE_DIRECTORIES) this.directories.add(dir);
  }
}

/** Relative paths resolve against `/`, the working directory exec gives a command [I]. */
export function normalize(path: string): string {
  return posix.resolve("/", path);
}
