export { type AppliedRepairs, applyRepairs } from "./apply-repair.js";
export { type RepairApplyOutcome, repairAuditRecord } from "./repair-audit.js";
export { REPAIR_FORMAT, repairJson } from "./repair-json.js";
export { type ProvenRepair, proveAndRepair, repairLeases } from "./repair-service.js";
export {
  PAPERCLIP_SCHEMA,
  PAPERCLIP_SWEEP,
  type RepairStatement,
  repairSql,
  repairStatement,
} from "./repair-sql.js";
export { sqlComment, sqlJsonb, sqlString, sqlTimestamp } from "./sql-literal.js";
