import path from "node:path";
import { z } from "zod";
import type { VaultStatus } from "../../../shared/contract/index.js";
import type { SecretListing } from "../config/secrets.js";
import { CoreError } from "../errors/core-error.js";
import { type EntryCipher, EntryFileVault } from "./entry-file-vault.js";
import { FileVault } from "./file-vault.js";

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
export class SafeStorageVault extends EntryFileVault<string, StoreFile> {
  readonly #safeStorage: SafeStorageLike;
  readonly #platform: NodeJS.Platform;
  readonly #fallback: FileVault;

  constructor(options: SafeStorageVaultOptions) {
    super(path.join(options.dir, SAFE_STORAGE_FILE_NAME), StoreFileSchema);
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

  // Where safeStorage cannot encrypt at all, every key lives in the fallback vault instead.
  override get(name: string): Promise<string | undefined> {
    return this.#cannotEncrypt() ? this.#fallback.get(name) : super.get(name);
  }

  override has(name: string): Promise<boolean> {
    return this.#cannotEncrypt() ? this.#fallback.has(name) : super.has(name);
  }

  override async set(name: string, value: string): Promise<void> {
    const encryption = this.encryption();
    if (encryption !== "os" && !(this.read()?.weakStoreAccepted ?? false)) {
      throw new CoreError(
        "vault",
        "refused",
        "This system has no keyring, so keys would be stored with weak protection; accept the weaker store in Settings first, or use an environment variable.",
      );
    }
    return encryption === "unavailable" ? this.#fallback.set(name, value) : super.set(name, value);
  }

  override clear(name: string): Promise<void> {
    return this.#cannotEncrypt() ? this.#fallback.clear(name) : super.clear(name);
  }

  override list(): Promise<SecretListing[]> {
    return this.#cannotEncrypt() ? this.#fallback.list() : super.list();
  }

  /** The operator's acceptance of the weaker store, remembered beside the keys. */
  async acceptWeakStore(): Promise<VaultStatus> {
    this.write({ ...(this.read() ?? this.create()), weakStoreAccepted: true });
    return this.status();
  }

  status(): VaultStatus {
    let accepted = false;
    try {
      accepted = this.read()?.weakStoreAccepted ?? false;
    } catch (error) {
      return this.unusable(error);
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

  protected create(): StoreFile {
    return { format: FORMAT, version: 1, weakStoreAccepted: false, entries: {} };
  }

  protected cipher(): EntryCipher<string> {
    return {
      seal: (_name, value) => this.#safeStorage.encryptString(value).toString("base64"),
      open: (_name, encoded) => {
        try {
          return this.#safeStorage.decryptString(Buffer.from(encoded, "base64"));
        } catch {
          return null;
        }
      },
    };
  }

  protected damagedEntry(name: string): string {
    return `The key "${name}" in ${this.file} cannot be decrypted; set it again (other keys are unaffected).`;
  }

  #cannotEncrypt(): boolean {
    return this.encryption() === "unavailable";
  }
}
