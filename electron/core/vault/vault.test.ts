import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EnvSecretStore } from "../config/secrets.js";
import { CoreError } from "../errors/core-error.js";
import { FileVault, VAULT_FILE_NAME, VAULT_KEY_FILE_NAME } from "./file-vault.js";
import { LayeredSecretStore } from "./layered.js";
import { SAFE_STORAGE_FILE_NAME, type SafeStorageLike, SafeStorageVault } from "./safe-storage-vault.js";

const KEY = "lk_SECRET_canary_7f3a";
const OTHER = "lk_other_key_1a2b";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "lk-vault-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Every form in which a key could sit in a file by mistake. */
function expectNoKeyIn(file: string, key: string) {
  const text = readFileSync(file, "utf8");
  expect(text).not.toContain(key);
  expect(text).not.toContain(Buffer.from(key).toString("base64"));
  expect(text).not.toContain(Buffer.from(key).toString("hex"));
}

function snapshotDir(): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name), "utf8")]),
  );
}

describe("file vault (browser host, CLI)", () => {
  it("keeps keys encrypted: round trip, file and key file 0600, no key in clear or base64", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", KEY);
    await vault.set("legacy", OTHER);
    expect(await vault.get("primary")).toBe(KEY);
    expect(await vault.get("legacy")).toBe(OTHER);
    expect(await vault.get("absent")).toBeUndefined();
    expectNoKeyIn(path.join(dir, VAULT_FILE_NAME), KEY);
    expectNoKeyIn(path.join(dir, VAULT_FILE_NAME), OTHER);
    expect(statSync(path.join(dir, VAULT_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, VAULT_KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(await vault.list()).toEqual([
      { name: "primary", last4: "7f3a" },
      { name: "legacy", last4: "1a2b" },
    ]);
    expect(vault.status()).toMatchObject({ encryption: "key-file", persistAllowed: true });
  });

  it("clears one key and keeps the others", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", KEY);
    await vault.set("legacy", OTHER);
    await vault.clear("primary");
    await vault.clear("never-set");
    expect(await vault.has("primary")).toBe(false);
    expect(await vault.get("legacy")).toBe(OTHER);
  });

  it("derives the key from LEASEKEEPER_VAULT_PASSPHRASE with scrypt, and says when it is wrong or missing", async () => {
    const vault = new FileVault({ dir, passphrase: "correct horse battery staple" });
    await vault.set("primary", KEY);
    expect(vault.status().encryption).toBe("passphrase");
    expect(readdirSync(dir)).not.toContain(VAULT_KEY_FILE_NAME);
    expect(await new FileVault({ dir, passphrase: "correct horse battery staple" }).get("primary")).toBe(KEY);
    await expect(new FileVault({ dir, passphrase: "wrong" }).get("primary")).rejects.toThrow(
      /LEASEKEEPER_VAULT_PASSPHRASE does not open the vault/,
    );
    await expect(new FileVault({ dir }).get("primary")).rejects.toThrow(/protected by a passphrase/);
    expectNoKeyIn(path.join(dir, VAULT_FILE_NAME), KEY);
  });

  it("reports a corrupted vault file by name and never overwrites it or touches other files", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", KEY);
    const file = path.join(dir, VAULT_FILE_NAME);
    writeFileSync(file, '{"format": "leasekeeper-vault", "entr', { mode: 0o600 });
    const before = snapshotDir();
    const error = await vault.get("primary").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CoreError);
    expect((error as CoreError).area).toBe("vault");
    expect((error as CoreError).code).toBe("corrupt");
    expect((error as CoreError).message).toContain(file);
    await expect(vault.set("legacy", OTHER)).rejects.toThrow(file);
    await expect(vault.clear("primary")).rejects.toThrow(file);
    expect(snapshotDir()).toEqual(before);
    expect(vault.status()).toMatchObject({ encryption: "none", persistAllowed: false });
  });

  it("a damaged entry costs only that entry", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", KEY);
    await vault.set("legacy", OTHER);
    const file = path.join(dir, VAULT_FILE_NAME);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    const data = Buffer.from(stored.entries.primary.data, "base64");
    data[0] = (data[0] ?? 0) ^ 0xff;
    stored.entries.primary.data = data.toString("base64");
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    await expect(vault.get("primary")).rejects.toThrow(/"primary" .* is damaged/);
    expect(await vault.get("legacy")).toBe(OTHER);
    expect(await vault.list()).toEqual([{ name: "legacy", last4: "1a2b" }]);
  });

  it("binds each entry to its name: a sealed key moved under another name does not open", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", KEY);
    const file = path.join(dir, VAULT_FILE_NAME);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    stored.entries.attacker = stored.entries.primary;
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    await expect(vault.get("attacker")).rejects.toMatchObject({ area: "vault", code: "corrupt" });
  });

  it("refuses a key file that other users can read", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", KEY);
    chmodSync(path.join(dir, VAULT_KEY_FILE_NAME), 0o644);
    await expect(vault.get("primary")).rejects.toThrow(/readable by other users/);
  });

  it("does not read prototype keys as entries", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", KEY);
    expect(await vault.get("__proto__")).toBeUndefined();
    expect(await vault.get("constructor")).toBeUndefined();
  });
});

/** A stand-in for Electron's safeStorage: reversible, never the plaintext. */
function fakeSafeStorage(options: { available?: boolean; backend?: string } = {}): SafeStorageLike {
  return {
    isEncryptionAvailable: () => options.available ?? true,
    encryptString: (text) =>
      Buffer.concat([Buffer.from("v10"), Buffer.from(text, "utf8").map((byte) => byte ^ 0x5a)]),
    decryptString: (buffer) => {
      if (buffer.subarray(0, 3).toString() !== "v10")
        throw new Error("Error while decrypting the ciphertext");
      return Buffer.from(buffer.subarray(3).map((byte) => byte ^ 0x5a)).toString("utf8");
    },
    getSelectedStorageBackend: () => options.backend ?? "gnome_libsecret",
  };
}

describe("safeStorage vault (Electron)", () => {
  it("encrypts with safeStorage and keeps base64 ciphertext in userData/credentials.json", async () => {
    const vault = new SafeStorageVault({ safeStorage: fakeSafeStorage(), dir, platform: "linux" });
    expect(vault.status()).toMatchObject({ encryption: "os", persistAllowed: true });
    await vault.set("primary", KEY);
    expect(await vault.get("primary")).toBe(KEY);
    expectNoKeyIn(path.join(dir, SAFE_STORAGE_FILE_NAME), KEY);
    expect(await vault.list()).toEqual([{ name: "primary", last4: "7f3a" }]);
  });

  it.each(["basic_text", "plain_text"])(
    "with the %s backend (Linux without a keyring) reports weak encryption and refuses to persist until accepted",
    async (backend) => {
      const vault = new SafeStorageVault({
        safeStorage: fakeSafeStorage({ backend }),
        dir,
        platform: "linux",
      });
      expect(vault.status()).toMatchObject({
        encryption: "weak-file",
        persistAllowed: false,
        weakStoreAccepted: false,
      });
      await expect(vault.set("primary", KEY)).rejects.toMatchObject({ code: "refused" });
      expect(readdirSync(dir)).toEqual([]);
      expect(await vault.acceptWeakStore()).toMatchObject({ encryption: "weak-file", persistAllowed: true });
      await vault.set("primary", KEY);
      expect(await vault.get("primary")).toBe(KEY);
    },
  );

  it("when safeStorage cannot encrypt at all, an accepted weak store is a key-file vault", async () => {
    const vault = new SafeStorageVault({
      safeStorage: fakeSafeStorage({ available: false }),
      dir,
      platform: "linux",
    });
    expect(vault.status()).toMatchObject({ encryption: "weak-file", persistAllowed: false });
    await expect(vault.set("primary", KEY)).rejects.toMatchObject({ code: "refused" });
    await vault.acceptWeakStore();
    await vault.set("primary", KEY);
    expect(await vault.get("primary")).toBe(KEY);
    for (const name of readdirSync(dir)) expectNoKeyIn(path.join(dir, name), KEY);
  });

  it("ignores the Linux backend on other platforms", () => {
    const vault = new SafeStorageVault({
      safeStorage: fakeSafeStorage({ backend: "basic_text" }),
      dir,
      platform: "darwin",
    });
    expect(vault.status().encryption).toBe("os");
  });

  it("reports a corrupted store file by name and leaves it as it is", async () => {
    const vault = new SafeStorageVault({ safeStorage: fakeSafeStorage(), dir, platform: "linux" });
    await vault.set("primary", KEY);
    const file = path.join(dir, SAFE_STORAGE_FILE_NAME);
    writeFileSync(file, "not json at all");
    const before = snapshotDir();
    await expect(vault.get("primary")).rejects.toThrow(file);
    await expect(vault.set("other", OTHER)).rejects.toThrow(file);
    expect(snapshotDir()).toEqual(before);
  });

  it("an entry that no longer decrypts costs only that entry", async () => {
    const vault = new SafeStorageVault({ safeStorage: fakeSafeStorage(), dir, platform: "linux" });
    await vault.set("primary", KEY);
    await vault.set("legacy", OTHER);
    const file = path.join(dir, SAFE_STORAGE_FILE_NAME);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    stored.entries.primary = Buffer.from("garbage").toString("base64");
    writeFileSync(file, JSON.stringify(stored));
    await expect(vault.get("primary")).rejects.toThrow(/"primary" .* cannot be decrypted/);
    expect(await vault.get("legacy")).toBe(OTHER);
  });
});

describe("env store and layered resolution", () => {
  const credentials = [
    { name: "primary", apiKeyEnv: "LK_TEST_PRIMARY" },
    { name: "legacy", apiKeyEnv: "LK_TEST_LEGACY" },
  ];

  it("reads keys from the variables the config names, and is read-only", async () => {
    const env = new EnvSecretStore(credentials, { LK_TEST_PRIMARY: KEY });
    expect(await env.get("primary")).toBe(KEY);
    expect(await env.get("legacy")).toBeUndefined();
    expect(await env.list()).toEqual([{ name: "primary", last4: "7f3a" }]);
    await expect(env.set("primary", OTHER)).rejects.toMatchObject({ code: "read-only" });
  });

  it("resolves the vault first, then the environment variable", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", "lk_from_vault_9999");
    const store = new LayeredSecretStore(
      vault,
      new EnvSecretStore(credentials, { LK_TEST_PRIMARY: KEY, LK_TEST_LEGACY: OTHER }),
    );
    expect(await store.resolve("primary")).toEqual({ value: "lk_from_vault_9999", storedIn: "vault" });
    expect(await store.resolve("legacy")).toEqual({ value: OTHER, storedIn: "env" });
    expect(
      await store.describe({ name: "legacy", origin: "https://a", apiKeyEnv: "LK_TEST_LEGACY" }),
    ).toEqual({
      name: "legacy",
      origin: "https://a",
      state: "set",
      last4: "1a2b",
      storedIn: "env",
      apiKeyEnv: "LK_TEST_LEGACY",
      notVerified: false,
    });
  });

  it("a damaged vault never hides a key from the environment", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", "lk_from_vault_9999");
    writeFileSync(path.join(dir, VAULT_FILE_NAME), "{broken");
    const store = new LayeredSecretStore(vault, new EnvSecretStore(credentials, { LK_TEST_PRIMARY: KEY }));
    expect(await store.get("primary")).toBe(KEY);
    expect(store.lastVaultProblem).toContain(path.join(dir, VAULT_FILE_NAME));
  });

  it("lists each key once, the vault's over the environment's, and a damaged vault hides none", async () => {
    const vault = new FileVault({ dir });
    await vault.set("primary", "lk_from_vault_9999");
    const env = new EnvSecretStore(credentials, { LK_TEST_PRIMARY: KEY, LK_TEST_LEGACY: OTHER });
    const store = new LayeredSecretStore(vault, env);
    expect(await store.list()).toEqual([
      { name: "primary", last4: "9999" },
      { name: "legacy", last4: "1a2b" },
    ]);
    writeFileSync(path.join(dir, VAULT_FILE_NAME), "{broken");
    expect(await store.list()).toEqual([
      { name: "primary", last4: "7f3a" },
      { name: "legacy", last4: "1a2b" },
    ]);
    expect(store.lastVaultProblem).toContain(path.join(dir, VAULT_FILE_NAME));
  });

  it("without a vault, refuses to keep or drop a key and says where keys are set", async () => {
    const store = new LayeredSecretStore(null, new EnvSecretStore(credentials, { LK_TEST_PRIMARY: KEY }));
    await expect(store.set("primary", OTHER)).rejects.toMatchObject({ area: "vault", code: "read-only" });
    await expect(store.clear("primary")).rejects.toMatchObject({ area: "vault", code: "read-only" });
    expect(await store.get("primary")).toBe(KEY);
    expect(store.status()).toMatchObject({ encryption: "none", persistAllowed: false });
  });
});
