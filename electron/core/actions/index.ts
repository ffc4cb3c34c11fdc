export { AUDIT_EXPORT_FORMATS, type AuditExportFormat, exportAudit } from "./audit/export.js";
export type { ClaimHolder, SandboxClaims, SandboxRef } from "./claims/claims.js";
export { SqliteClaims } from "./claims/sqlite-claims.js";
export {
  type ActionEngine,
  type ActionEngineDeps,
  type AuditQueryInput,
  createActionEngine,
} from "./engine.js";
export { type ActionOptions, DEFAULT_ACTION_OPTIONS } from "./options.js";
export type { AccountClient, InventoryPort, LeaseRereader, ProviderPort } from "./ports.js";
