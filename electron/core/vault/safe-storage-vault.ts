import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { VaultStatus } from "../../../shared/contract.js";
import { CoreError, isCoreError } from "../errors/core-error.js";
import { FileVault, writeFileAtomic } from "./file-vault.js";
import { lastFour, type SecretListing, type SecretStore } from "./types.js";

/** The part of Electron's `safeStorage` the vault uses; main.ts passes the real one, tests a fake. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: which secret store backs the encryption key. */
  getSelectedStorageBackend?(): string;
}

export const SAFE_STORAGE_FILE_NAME = "credentials.json";
const FORMAT = "leasekeeper-safe-storage";

/** Linux backends that are obfuscation, not encryption (no keyring): Electron uses a hard-coded password. */
const WEAK_BACKENDS = new Set(["basic_text", "plain_text", "unknown"]);

const StoreFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  weakStoreAccepted: z.boolean(),
  entries: z.record(z.string(), z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/)),
});
type StoreFile = z.infer<typeof StoreFileSchema>;

export interface SafeStorageVaultOptions {
  safeStorage: SafeStorageLike;
  /** Electron's userData folder. */
  dir: string;
  platform?: NodeJS.Platform;
}

/**
 * Electron's vault: each key encrypted with `safeStorage` (Keychain, DPAPI, or the Linux secret service)
 * and kept as base64 in `<userData>/credentials.json`. Where safeStorage has no real encryption (Linux
 * without a keyring) the store says so and refuses to persist until the operator accepts the weaker store;
 * if safeStorage cannot encrypt at all, an accepted weak store is a key-file vault in the same folder.
 */
export class SafeStorageVault implements SecretStore {
  readonly file: string;
  readonly #safeStorage: SafeStorageLike;
  readonly #platform: NodeJS.Platform;
  readonly #fallback: FileVault;

  constructor(options: SafeStorageVaultOptions) {
    this.file = path.join(options.dir, SAFE_STORAGE_FILE_NAME);
    this.#safeStorage = options.safeStorage;
    this.#platform = options.platform ?? process.platform;
    this.#fallback = new FileVault({ dir: options.dir, fileName: "credentials.weak.json" });
  }

  /** How strong the OS encryption is right now: `os`, `weak` (obfuscation) or `unavailable`. */
  encryption(): "os" | "weak" | "unavailable" {
    if (!this.#safeStorage.isEncryptionAvailable()) return "unavailable";
    if (this.#platform === "linux") {
      let backend = "unknown";
      try {
        backend = this.#safeStorage.getSelectedStorageBackend?.() ?? "unknown";
      } catch {
        backend = "unknown";
      }
      if (WEAK_BACKENDS.has(backend)) return "weak";
    }
    return "os";
  }

  async get(name: string): Promise<string | undefined> {
    if (this.encryption() === "unavailable") return this.#fallback.get(name);
    const store = this.#read();
    const encoded = store && Object.hasOwn(store.entries, name) ? store.entries[name] : undefined;
    if (encoded === undefined) return undefined;
    try {
      return this.#safeStorage.decryptString(Buffer.from(encoded, "base64"));
    } catch {
      throw new CoreError(
        "vault",
        "corrupt",
        `The key "${name}" in ${this.file} cannot be decrypted; set it again (other keys are unaffected).`,
      );
    }
  }

  async has(name: string): Promise<boolean> {
    if (this.encryption() === "unavailable") return this.#fallback.has(name);
    const store = this.#read();
    return store !== null && Object.hasOwn(store.entries, name);
  }

  async set(name: string, value: string): Promise<void> {
    const encryption = this.encryption();
    const store = this.#read() ?? emptyStore();
    if (encryption !== "os" && !store.weakStoreAccepted) {
      throw new CoreError(
        "vault",
        "refused",
        "This system has no keyring, so keys would be stored with weak protection; accept the weaker store in Settings first, or use an environment variable.",
      );
    }
    if (encryption === "unavailable") return this.#fallback.set(name, value);
    const encrypted = this.#safeStorage.encryptString(value).toString("base64");
    this.#write({ ...store, entries: { ...store.entries, [name]: encrypted } });
  }

  async clear(name: string): Promise<void> {
    if (this.encryption() === "unavailable") return this.#fallback.clear(name);
    const store = this.#read();
    if (store === null || !Object.hasOwn(store.entries, name)) return;
    const entries = { ...store.entries };
    delete entries[name];
    this.#write({ ...store, entries });
  }

  async list(): Promise<SecretListing[]> {
    if (this.encryption() === "unavailable") return this.#fallback.list();
    const store = this.#read();
    if (store === null) return [];
    const listed: SecretListing[] = [];
    for (const [name, encoded] of Object.entries(store.entries)) {
      try {
        listed.push({
          name,
          last4: lastFour(this.#safeStorage.decryptString(Buffer.from(encoded, "base64"))),
        });
      } catch {
        // A damaged entry is reported when it is read; the listing shows the others.
      }
    }
    return listed;
  }

  /** The operator's acceptance of the weaker store, remembered beside the keys. */
  async acceptWeakStore(): Promise<VaultStatus> {
    const store = this.#read() ?? emptyStore();
    this.#write({ ...store, weakStoreAccepted: true });
    return this.status();
  }

  status(): VaultStatus {
    let accepted = false;
    try {
      accepted = this.#read()?.weakStoreAccepted ?? false;
    } catch (error) {
      return {
        encryption: "none",
        persistAllowed: false,
        weakStoreAccepted: false,
        message: isCoreError(error, "vault") ? error.message : `The vault ${this.file} cannot be used.`,
      };
    }
    const encryption = this.encryption();
    if (encryption === "os") {
      return {
        encryption: "os",
        persistAllowed: true,
        weakStoreAccepted: accepted,
        message: "Keys are encrypted with the operating system's keychain.",
      };
    }
    return {
      encryption: "weak-file",
      persistAllowed: accepted,
      weakStoreAccepted: accepted,
      message: accepted
        ? "No keyring is available: keys are stored with weak protection, as you accepted."
        : "No keyring is available: saving a key needs your consent to a weaker store (or use an environment variable).",
    };
  }

  #read(): StoreFile | null {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new CoreError("vault", "io", `The vault ${this.file} cannot be read.`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw damaged(this.file, "is not valid JSON");
    }
    const parsed = StoreFileSchema.safeParse(raw);
    if (!parsed.success) throw damaged(this.file, "is not in the vault format");
    return parsed.data;
  }

  #write(store: StoreFile): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.file, `${JSON.stringify(store, null, 2)}\n`);
  }
}

function emptyStore(): StoreFile {
  return { format: FORMAT, version: 1, weakStoreAccepted: false, entries: {} };
}

function damaged(file: string, what: string): CoreError<"vault"> {
  return new CoreError(
    "vault",
    "corrupt",
    `The vault ${file} ${what}; it was left as it is. Move it aside to start a new vault (keys from environment variables still work).`,
  );
}
