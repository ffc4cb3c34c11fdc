import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { VaultStatus } from "../../../shared/contract/index.js";
import { CoreError, isCoreError } from "../errors/core-error.js";
import { type EntryCipher, EntryFileVault } from "./entry-file-vault.js";

/**
 * The browser host's and the CLI's vault: one JSON file, each key sealed on its own with AES-256-GCM
 * (so one damaged entry never costs the others). The 256-bit key comes either from a random key file
 * beside it (mode 0600) or, when LEASEKEEPER_VAULT_PASSPHRASE is set when the vault is created, from
 * that passphrase through scrypt. The format is documented in docs/vault.md.
 */

export const VAULT_FILE_NAME = "vault.json";
export const VAULT_KEY_FILE_NAME = "vault.key";
export const PASSPHRASE_ENV = "LEASEKEEPER_VAULT_PASSPHRASE";

const FORMAT = "leasekeeper-vault";
const CHECK_PLAINTEXT = "leasekeeper-vault-check";
const SCRYPT = { N: 32_768, r: 8, p: 1 } as const;

const b64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);
const SealedSchema = z.object({ iv: b64, tag: b64, data: b64 });
type Sealed = z.infer<typeof SealedSchema>;

const VaultFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  cipher: z.literal("aes-256-gcm"),
  kdf: z.discriminatedUnion("type", [
    z.object({ type: z.literal("key-file"), keyFile: z.string().min(1) }),
    z.object({
      type: z.literal("scrypt"),
      salt: b64,
      N: z.number().int(),
      r: z.number().int(),
      p: z.number().int(),
    }),
  ]),
  check: SealedSchema,
  entries: z.record(z.string(), SealedSchema),
});
type VaultFile = z.infer<typeof VaultFileSchema>;

export interface FileVaultOptions {
  dir: string;
  /** The passphrase (from LEASEKEEPER_VAULT_PASSPHRASE); used for a new vault and for one made with it. */
  passphrase?: string | undefined;
  fileName?: string;
}

function seal(key: Buffer, plaintext: string, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return {
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
}

/** Null when the key is wrong or the entry was altered: GCM authenticates before it decrypts. */
function open(key: Buffer, sealed: Sealed, aad: string): string | null {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(aad, "utf8"));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    return null;
  }
}

/** Entries are bound to their name, so a sealed key cannot be moved under another credential's name. */
const entryAad = (name: string) => `${FORMAT}:v1:entry:${name}`;
const CHECK_AAD = `${FORMAT}:v1:check`;

export class FileVault extends EntryFileVault<Sealed, VaultFile> {
  readonly keyFile: string;
  readonly #passphrase: string | undefined;
  #derived: { salt: string; key: Buffer } | null = null;

  constructor(options: FileVaultOptions) {
    super(path.join(options.dir, options.fileName ?? VAULT_FILE_NAME), VaultFileSchema);
    this.keyFile = path.join(options.dir, VAULT_KEY_FILE_NAME);
    this.#passphrase = options.passphrase === "" ? undefined : options.passphrase;
  }

  status(): VaultStatus {
    try {
      const vault = this.read();
      if (vault !== null) this.#key(vault);
      const passphrase = vault ? vault.kdf.type === "scrypt" : this.#passphrase !== undefined;
      return {
        encryption: passphrase ? "passphrase" : "key-file",
        persistAllowed: true,
        weakStoreAccepted: false,
        message: passphrase
          ? `Keys are encrypted in ${this.file} with a key derived from ${PASSPHRASE_ENV}.`
          : `Keys are encrypted in ${this.file}; the key is in ${this.keyFile} (readable by you only).`,
      };
    } catch (error) {
      return this.unusable(error);
    }
  }

  protected cipher(vault: VaultFile): EntryCipher<Sealed> {
    const key = this.#key(vault);
    return {
      seal: (name, value) => seal(key, value, entryAad(name)),
      open: (name, sealed) => open(key, sealed, entryAad(name)),
    };
  }

  protected damagedEntry(name: string): string {
    return `The key "${name}" in ${this.file} is damaged; set it again (other keys are unaffected).`;
  }

  protected create(): VaultFile {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    let kdf: VaultFile["kdf"];
    if (this.#passphrase !== undefined) {
      kdf = { type: "scrypt", salt: randomBytes(16).toString("base64"), ...SCRYPT };
    } else {
      if (!existsSync(this.keyFile)) {
        const fd = openSync(this.keyFile, "wx", 0o600);
        try {
          writeSync(fd, `${randomBytes(32).toString("hex")}\n`);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
      kdf = { type: "key-file", keyFile: VAULT_KEY_FILE_NAME };
    }
    const draft = { format: FORMAT, version: 1, cipher: "aes-256-gcm", kdf, entries: {} } as const;
    const key = this.#key({ ...draft, check: { iv: "", tag: "", data: "" } });
    return { ...draft, check: seal(key, CHECK_PLAINTEXT, CHECK_AAD) };
  }

  /** The vault's key, checked against its check entry, so a wrong passphrase reads as such and not as damage. */
  #key(vault: VaultFile): Buffer {
    const key =
      vault.kdf.type === "scrypt" ? this.#passphraseKey(vault.kdf) : this.#keyFromFile(vault.kdf.keyFile);
    if (vault.check.data !== "" && open(key, vault.check, CHECK_AAD) !== CHECK_PLAINTEXT) {
      throw new CoreError(
        "vault",
        "locked",
        vault.kdf.type === "scrypt"
          ? `${PASSPHRASE_ENV} does not open the vault ${this.file}.`
          : `The key file ${this.keyFile} does not open the vault ${this.file}.`,
      );
    }
    return key;
  }

  #passphraseKey(kdf: Extract<VaultFile["kdf"], { type: "scrypt" }>): Buffer {
    if (this.#passphrase === undefined) {
      throw new CoreError(
        "vault",
        "locked",
        `The vault ${this.file} is protected by a passphrase; set ${PASSPHRASE_ENV}.`,
      );
    }
    if (this.#derived?.salt !== kdf.salt) {
      const key = scryptSync(this.#passphrase, Buffer.from(kdf.salt, "base64"), 32, {
        N: kdf.N,
        r: kdf.r,
        p: kdf.p,
        maxmem: 256 * kdf.N * kdf.r,
      });
      this.#derived = { salt: kdf.salt, key };
    }
    return this.#derived.key;
  }

  #keyFromFile(keyFile: string): Buffer {
    const file = path.resolve(path.dirname(this.file), path.basename(keyFile));
    let text: string;
    try {
      if (process.platform !== "win32" && (statSync(file).mode & 0o077) !== 0) {
        throw new CoreError(
          "vault",
          "locked",
          `The vault key file ${file} is readable by other users; run: chmod 600 ${file}`,
        );
      }
      text = readFileSync(file, "utf8").trim();
    } catch (error) {
      if (isCoreError(error, "vault")) throw error;
      throw new CoreError(
        "vault",
        "locked",
        `The vault key file ${file} is missing or unreadable; the keys in ${this.file} cannot be read.`,
      );
    }
    if (!/^[0-9a-f]{64}$/.test(text))
      throw new CoreError("vault", "corrupt", `The vault key file ${file} is damaged.`);
    return Buffer.from(text, "hex");
  }
}
