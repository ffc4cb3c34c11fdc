export {
  findCredential,
  type OpenClientResult,
  openCreateosClient,
} from "./credentials.js";
export {
  CONFIG_FILE_NAME,
  type CredentialConfig,
  type LeasekeeperConfig,
  loadConfig,
  parseConfig,
  type SourceConfig,
} from "./load.js";
export { EnvSecretStore, resolveApiKey, type SecretStore } from "./secrets.js";
