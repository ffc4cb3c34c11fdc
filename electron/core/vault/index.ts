export {
  FileVault,
  type FileVaultOptions,
  PASSPHRASE_ENV,
  VAULT_FILE_NAME,
  VAULT_KEY_FILE_NAME,
} from "./file-vault.js";
export { LayeredSecretStore, type WeakStoreConsent } from "./layered.js";
export {
  SAFE_STORAGE_FILE_NAME,
  type SafeStorageLike,
  SafeStorageVault,
  type SafeStorageVaultOptions,
} from "./safe-storage-vault.js";
export { writeFileAtomic } from "./write-file-atomic.js";
