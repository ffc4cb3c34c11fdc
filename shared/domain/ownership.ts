import { MAX_API_URL_LENGTH, sameApiUrl } from "./api-url.js";
import { CREATEOS_PROVIDER, type OwnershipCode, PLUGIN_GENERATIONS } from "./codes.js";
import { type LeaseMetadata, ownershipMetadata, recorded } from "./lease-metadata.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { parseRecordedConfig, type RecordedConfigParse } from "./paperclip-config.js";
import { actingGeneration, type InstalledPlugin } from "./plugin-generations.js";
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
 * environment; `environment-unread` in the environment's place when the source could not read it), or
 * else `api-url-changed` or `owned`; then `company-scope-mismatch` when the row's company is not its
 * company-scoped environment's; then `no-sandbox-id` when the row names no sandbox.
 */
export function ownership(
  row: LeaseRow,
  environment: Environment | null,
  installed?: InstalledPlugin,
): OwnershipCode[] {
  const codes = metadataVerdict(row, environment, installed);
  if (environment !== null && environment.companyId !== null && environment.companyId !== row.companyId) {
    codes.push("company-scope-mismatch");
  }
  if (recordedSandboxId(row) === null) codes.push("no-sandbox-id");
  return codes;
}

function metadataVerdict(
  row: LeaseRow,
  environment: Environment | null,
  installed: InstalledPlugin | undefined,
): OwnershipCode[] {
  const metadata = ownershipMetadata(row.metadata);
  if (metadata === null) return ["metadata-missing"];

  const codes: OwnershipCode[] = [];
  if (recorded(metadata, "provider") !== CREATEOS_PROVIDER) codes.push("foreign-provider");
  if (environment === null) {
    // An environment the source holds but could not read is not known to be gone: what the host would
    // pass the plugin, and so the plugin's answer, cannot be told.
    if (row.environmentUnread === true) {
      codes.push("environment-unread");
      return codes;
    }
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

  const recordedConfig = recordedConfigVerdict(metadata, installed);
  if (recordedConfig !== null) return [recordedConfig];
  return [sameApiUrl(recorded(metadata, "apiUrl"), environment.config.apiUrl) ? "owned" : "api-url-changed"];
}

/**
 * The host rebuilds the plugin's config from the lease's metadata for every call but resume, so the
 * plugin's own parse of the recorded config decides whether any of those calls can succeed: a config it
 * rejects throws (`config-rejected`), and a recorded `apiUrl` that is not the parse's origin fails the
 * ownership test against itself (`api-url-not-origin`). Both hold for ever, whatever the environment
 * says now. The parse is the acting generation's; where that cannot be told, a config is called rejected
 * only when every generation rejects it, the reading that takes fewer leases out of Paperclip's hands.
 */
export function recordedConfigVerdict(
  metadata: LeaseMetadata,
  installed: InstalledPlugin | undefined,
): "config-rejected" | "api-url-not-origin" | null {
  const apiUrl = recorded(metadata, "apiUrl");
  // No CreateOS origin is anywhere near this long, and a URL parse per row of such text is what a hostile
  // ledger would exploit: the parse is not run, and the row is judged by its other codes.
  if (typeof apiUrl === "string" && apiUrl.length > MAX_API_URL_LENGTH) return null;
  const parses = recordedConfigParses(metadata, installed);
  if (parses.every((parsed) => !parsed.ok)) return "config-rejected";
  const parsed = parses.find((entry) => entry.ok);
  return parsed?.ok === true && apiUrl !== parsed.apiUrl ? "api-url-not-origin" : null;
}

/** The acting generation's parse of the recorded config, or every generation's when it is not known. */
export function recordedConfigParses(
  metadata: LeaseMetadata,
  installed: InstalledPlugin | undefined,
): RecordedConfigParse[] {
  const actor = actingGeneration(installed);
  const generations = actor === null ? PLUGIN_GENERATIONS : [actor];
  return generations.map((generation) => parseRecordedConfig(metadata, generation));
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
 * the recorded one, so the plugin's URL test passes at release and only fails at resume. Nor is
 * `environment-unread`: whether the plugin refuses cannot be told, so it is said neither to refuse nor
 * to accept.
 */
export type OwnershipMismatch = Exclude<
  OwnershipCode,
  "owned" | "no-sandbox-id" | "api-url-changed" | "company-scope-mismatch" | "environment-unread"
>;

const NOT_REFUSED: readonly OwnershipCode[] = [
  "owned",
  "no-sandbox-id",
  "api-url-changed",
  "company-scope-mismatch",
  "environment-unread",
];

/**
 * The first code that makes the plugin refuse to release this lease, or null when it accepts it or when
 * that cannot be told (`environment-unread`; `pluginAcceptsRelease` says which).
 */
export function ownershipMismatch(codes: readonly OwnershipCode[]): OwnershipMismatch | null {
  return codes.find((code): code is OwnershipMismatch => !NOT_REFUSED.includes(code)) ?? null;
}

/**
 * The plugin would accept a release of this lease as the host makes it (it may still find no sandbox).
 * Not said of a lease whose environment could not be read: its acceptance is not known.
 */
export function pluginAcceptsRelease(codes: readonly OwnershipCode[]): boolean {
  return (
    ownershipMismatch(codes) === null &&
    !codes.includes("no-sandbox-id") &&
    !codes.includes("environment-unread")
  );
}
