import { sameApiUrl } from "./api-url.js";
import { CREATEOS_PROVIDER, type OwnershipCode } from "./codes.js";
import { ownershipMetadata, recorded } from "./lease-metadata.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { recordedSandboxId } from "./sandbox-id.js";

/**
 * Whose lease this is: the plugin's `metadataMatches`, applied to the environment the row is listed under.
 * The plugin refuses every call on a lease that fails it, so each failed test gets its own code and the
 * operator sees every reason at once, not only the first.
 *
 * Codes come in a fixed order: `metadata-missing`, or the foreign codes that apply (provider, company,
 * environment), or else `api-url-changed` or `owned`; then `no-sandbox-id` when the row names no sandbox.
 */
export function ownership(row: LeaseRow, environment: Environment | null): OwnershipCode[] {
  const codes = metadataVerdict(row.metadata, environment);
  if (recordedSandboxId(row) === null) codes.push("no-sandbox-id");
  return codes;
}

function metadataVerdict(rawMetadata: unknown, environment: Environment | null): OwnershipCode[] {
  const metadata = ownershipMetadata(rawMetadata);
  if (metadata === null) return ["metadata-missing"];

  const codes: OwnershipCode[] = [];
  if (recorded(metadata, "provider") !== CREATEOS_PROVIDER) codes.push("foreign-provider");
  if (environment === null) {
    // An orphan row (its environment deleted, or never named) has no environment whose config the plugin
    // could be called with, so no plugin-routed call can ever match it: for the plugin it is as foreign
    // as a row of another environment, and only a forced destroy at its recorded origin can clean it up.
    codes.push("foreign-environment");
    return codes;
  }
  if (recorded(metadata, "companyId") !== environment.companyId) codes.push("foreign-company");
  if (recorded(metadata, "environmentId") !== environment.id) codes.push("foreign-environment");
  if (codes.length > 0) return codes;

  return [sameApiUrl(recorded(metadata, "apiUrl"), environment.config.apiUrl) ? "owned" : "api-url-changed"];
}

const FOREIGN_CODES: readonly OwnershipCode[] = [
  "foreign-provider",
  "foreign-company",
  "foreign-environment",
];

/** The plugin refuses these outright: the metadata names someone else. */
export function isForeign(code: OwnershipCode): boolean {
  return FOREIGN_CODES.includes(code);
}

/** The codes that make the plugin refuse a lease ("does not belong to this environment"). */
export type OwnershipMismatch = Exclude<OwnershipCode, "owned" | "no-sandbox-id">;

/** The first code that makes the plugin refuse this lease, or null when the metadata matches. */
export function ownershipMismatch(codes: readonly OwnershipCode[]): OwnershipMismatch | null {
  return (
    codes.find((code): code is OwnershipMismatch => code !== "owned" && code !== "no-sandbox-id") ?? null
  );
}
