import type { JsonObject } from "./world.js";

// Paperclip's enums (`packages/shared/src/constants.ts`) and how its service maps a row through them
// (`server/src/services/environments.ts`, `readEnum`, both read at
// de47c58c87611764d2c3b481fe1d537e182ed2b1): null maps to the field's default, a listed value passes,
// and anything else throws `Unexpected <field> value: <value>`. Nothing catches that error, so the
// request ends as 500 `{ "error": "Internal server error" }`, and a list ends so as a whole: the rows
// are mapped after the query, before any is sent. Every version read throws (`readEnum` is unchanged
// since 13551b2b, which added the service); only the lists grew.

export const ENVIRONMENT_DRIVERS = ["local", "ssh", "sandbox", "plugin"] as const;
export const ENVIRONMENT_STATUSES = ["active", "archived"] as const;
export const ENVIRONMENT_LEASE_STATUSES = [
  "active",
  "released",
  "expired",
  "failed",
  "retained",
  "pending_cleanup",
] as const;
export const ENVIRONMENT_LEASE_POLICIES = [
  "ephemeral",
  "reuse_by_environment",
  "reuse_by_execution_workspace",
  "retain_on_failure",
] as const;
export const ENVIRONMENT_LEASE_CLEANUP_STATUSES = ["pending", "success", "failed"] as const;

/** The message `readEnum` would throw for this value, or null when it maps. Absent counts as null. */
function enumError(value: unknown, allowed: readonly string[], fieldName: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" && allowed.includes(value)) return null;
  return `Unexpected ${fieldName} value: ${String(value)}`;
}

export function environmentEnumError(row: JsonObject): string | null {
  return (
    enumError(row.driver, ENVIRONMENT_DRIVERS, "environment driver") ??
    enumError(row.status, ENVIRONMENT_STATUSES, "environment status")
  );
}

export function leaseEnumError(row: JsonObject): string | null {
  return (
    enumError(row.status, ENVIRONMENT_LEASE_STATUSES, "environment lease status") ??
    enumError(row.leasePolicy, ENVIRONMENT_LEASE_POLICIES, "environment lease policy") ??
    enumError(row.cleanupStatus, ENVIRONMENT_LEASE_CLEANUP_STATUSES, "environment lease cleanup status")
  );
}
