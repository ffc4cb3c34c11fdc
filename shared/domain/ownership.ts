import { sameApiUrl } from "./api-url.js";
import { CREATEOS_PROVIDER, type OwnershipCode } from "./codes.js";
import { ownershipMetadata, recorded } from "./lease-metadata.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { recordedSandboxId } from "./sandbox-id.js";

/**
 * Whose lease this is: the plugin's `metadataMatches`, applied to what the host passes it for this row.
 * For release, destroy and execute the host passes the lease row's own company and environment, and the
 * config recovered from the lease's metadata; so the company compared is the row's (on an instance-scoped
 * environment, shared by every company, each company's rows are its own), and an edited API URL does not
 * make release or destroy fail: it only makes the next resume fail (`api-url-changed`). The plugin refuses
 * every call on a lease that fails the other tests, so each failed test gets its own code and the operator
 * sees every reason at once, not only the first.
 *
 * Codes come in a fixed order: `metadata-missing`, or the foreign codes that apply (provider, company,
 * environment), or else `api-url-changed` or `owned`; then `company-scope-mismatch` when the row's company
 * is not its company-scoped environment's; then `no-sandbox-id` when the row names no sandbox.
 */
export function ownership(row: LeaseRow, environment: Environment | null): OwnershipCode[] {
  const codes = metadataVerdict(row, environment);
  if (environment !== null && environment.companyId !== null && environment.companyId !== row.companyId) {
    codes.push("company-scope-mismatch");
  }
  if (recordedSandboxId(row) === null) codes.push("no-sandbox-id");
  return codes;
}

function metadataVerdict(row: LeaseRow, environment: Environment | null): OwnershipCode[] {
  const metadata = ownershipMetadata(row.metadata);
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
  if (recorded(metadata, "companyId") !== row.companyId) codes.push("foreign-company");
  if (recorded(metadata, "environmentId") !== (row.environmentId ?? environment.id)) {
    codes.push("foreign-environment");
  }
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

/**
 * The codes that make the plugin refuse a release or destroy ("does not belong to this environment").
 * `api-url-changed` is not one: the host releases with the config recorded in the lease, whose API URL is
 * the recorded one, so the plugin's URL test passes at release and only fails at resume.
 */
export type OwnershipMismatch = Exclude<
  OwnershipCode,
  "owned" | "no-sandbox-id" | "api-url-changed" | "company-scope-mismatch"
>;

const NOT_REFUSED: readonly OwnershipCode[] = [
  "owned",
  "no-sandbox-id",
  "api-url-changed",
  "company-scope-mismatch",
];

/** The first code that makes the plugin refuse to release this lease, or null when it accepts it. */
export function ownershipMismatch(codes: readonly OwnershipCode[]): OwnershipMismatch | null {
  return codes.find((code): code is OwnershipMismatch => !NOT_REFUSED.includes(code)) ?? null;
}

/** The plugin would accept a release of this lease as the host makes it (it may still find no sandbox). */
export function pluginAcceptsRelease(codes: readonly OwnershipCode[]): boolean {
  return ownershipMismatch(codes) === null && !codes.includes("no-sandbox-id");
}
