import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import type { VaultStatus } from "../../../shared/contract/index.js";
import { lastFour, type SecretListing, type SecretStore } from "../config/secrets.js";
import { CoreError, isCoreError } from "../errors/core-error.js";
import { writeFileAtomic } from "./write-file-atomic.js";

/** What every vault file holds: named entries, each sealed on its own. */
export interface StoredEntries<Entry> {
  entries: Record<string, Entry>;
}

/** How one file's entries are sealed and opened, prepared once per operation (a key derivation is slow). */
export interface EntryCipher<Entry> {
  seal(name: string, value: string): Entry;
  /** The value, or null when the entry does not open (altered, damaged, or moved under another name). */
  open(name: string, entry: Entry): string | null;
}

/**
 * A vault kept as one JSON file of named entries, each sealed on its own so that one damaged entry
 * never costs the others. The key-file vault and Electron's safeStorage vault differ only in how an
 * entry is sealed and what else their file records; reading and writing the file and every key
 * operation are written here once. A damaged file is an error and is never overwritten.
 */
export abstract class EntryFileVault<Entry, Stored extends StoredEntries<Entry>> implements SecretStore {
  readonly file: string;
  readonly #schema: z.ZodType<Stored>;

  protected constructor(file: string, schema: z.ZodType<Stored>) {
    this.file = file;
    this.#schema = schema;
  }

  /** The contents of a vault that has no file yet; written by the first `set`. */
  protected abstract create(): Stored;
  /** Throws a vault error when the file's key cannot be had (a wrong passphrase, a missing key file). */
  protected abstract cipher(stored: Stored): EntryCipher<Entry>;
  /** The sentence for an entry that does not open. */
  protected abstract damagedEntry(name: string): string;
  abstract status(): VaultStatus;

  async get(name: string): Promise<string | undefined> {
    const stored = this.read();
    const entry = stored !== null && Object.hasOwn(stored.entries, name) ? stored.entries[name] : undefined;
    if (stored === null || entry === undefined) return undefined;
    const value = this.cipher(stored).open(name, entry);
    if (value === null) throw new CoreError("vault", "corrupt", this.damagedEntry(name));
    return value;
  }

  async has(name: string): Promise<boolean> {
    const stored = this.read();
    return stored !== null && Object.hasOwn(stored.entries, name);
  }

  async set(name: string, value: string): Promise<void> {
    const stored = this.read() ?? this.create();
    const entry = this.cipher(stored).seal(name, value);
    this.write({ ...stored, entries: { ...stored.entries, [name]: entry } });
  }

  async clear(name: string): Promise<void> {
    const stored = this.read();
    if (stored === null || !Object.hasOwn(stored.entries, name)) return;
    const entries = { ...stored.entries };
    delete entries[name];
    this.write({ ...stored, entries });
  }

  async list(): Promise<SecretListing[]> {
    const stored = this.read();
    if (stored === null) return [];
    const cipher = this.cipher(stored);
    const listed: SecretListing[] = [];
    for (const [name, entry] of Object.entries(stored.entries)) {
      // A damaged entry is reported when it is read; the listing shows the others.
      const value = cipher.open(name, entry);
      if (value !== null) listed.push({ name, last4: lastFour(value) });
    }
    return listed;
  }

  /** The file as stored, or null when there is none yet. */
  protected read(): Stored | null {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return null;
      throw new CoreError("vault", "io", `The vault ${this.file} cannot be read (${code ?? "error"}).`, {
        cause: error,
      });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw this.#damaged("is not valid JSON");
    }
    const parsed = this.#schema.safeParse(raw);
    if (!parsed.success) throw this.#damaged("is not in the vault format");
    return parsed.data;
  }

  protected write(stored: Stored): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.file, `${JSON.stringify(stored, null, 2)}\n`);
  }

  /** The status of a vault whose file cannot be used, in the vault error's own words. */
  protected unusable(error: unknown): VaultStatus {
    return {
      encryption: "none",
      persistAllowed: false,
      weakStoreAccepted: false,
      message: isCoreError(error, "vault") ? error.message : `The vault ${this.file} cannot be used.`,
    };
  }

  #damaged(what: string): CoreError<"vault"> {
    return new CoreError(
      "vault",
      "corrupt",
      `The vault ${this.file} ${what}; it was left as it is. Move it aside to start a new vault (keys from environment variables still work).`,
    );
  }
}
