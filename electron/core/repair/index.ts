export { REPAIR_FORMAT, repairJson } from "./repair-json.js";
export { repairLeases } from "./repair-service.js";
export {
  PAPERCLIP_SCHEMA,
  PAPERCLIP_SWEEP,
  type RepairStatement,
  repairSql,
  repairStatement,
} from "./repair-sql.js";
export { sqlComment, sqlJsonb, sqlString, sqlTimestamp } from "./sql-literal.js";
