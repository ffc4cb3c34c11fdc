export { API_KEY_MESSAGES, type ApiKeyCheck, checkApiKey } from "./api-key.js";
export {
  type CallOptions,
  type CallOutcome,
  CreateosClient,
  type CreateosClientOptions,
  type DeleteResult,
  type ExecResult,
  type PauseResult,
  type SandboxList,
  type SandboxLookup,
  type WhoamiResult,
} from "./client.js";
export {
  CREATEOS_OPERATIONS,
  CreateosError,
  type CreateosErrorKind,
  type CreateosOperation,
  isCreateosError,
  unknownReasonFor,
} from "./errors.js";
export {
  allOriginStats,
  configureOrigin,
  DEFAULT_REQUESTS_PER_MINUTE,
  type OriginStats,
  originStats,
  pacerFor,
} from "./pacer.js";
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from "./transport.js";
