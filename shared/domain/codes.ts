/**
 * Every code a verdict can carry. The lists are the vocabulary shared by the scanner, the contract,
 * the CLI's JSON output and the UI; adding a code here is a deliberate, reviewed change.
 */

/**
 * How a lease's metadata compares with what the host passes the plugin for this row (the plugin's own
 * rule), plus `company-scope-mismatch`: the row's company is not the company its (company-scoped)
 * environment belongs to, a finding the plugin does not check but an operator should see; and
 * `environment-unread`: the row is listed under an environment its source holds but could not read, so
 * what the host would pass the plugin, and so whether the plugin would accept the lease, cannot be told.
 */
export const OWNERSHIP_CODES = [
  "owned",
  "foreign-company",
  "foreign-environment",
  "foreign-provider",
  "api-url-changed",
  "metadata-missing",
  "company-scope-mismatch",
  "no-sandbox-id",
  "api-url-not-origin",
  "config-rejected",
  "environment-unread",
] as const;
export type OwnershipCode = (typeof OWNERSHIP_CODES)[number];

/** CreateOS statuses of a sandbox that still exists (listed, not destroyed or failed). */
export const LIVE_PROVIDER_STATES = [
  "running",
  "paused",
  "creating",
  "pausing",
  "resuming",
  "forking",
  "error",
  "destroying",
] as const;
export type LiveProviderState = (typeof LIVE_PROVIDER_STATES)[number];

/**
 * What CreateOS says of a lease's sandbox. `gone` is only ever concluded from a listing that shows the
 * sandbox destroyed or failed; `not-visible` means no configured account lists it (CreateOS answers 404
 * for another account's sandbox exactly as for a purged one); `unknown` means we could not ask.
 */
export const PROVIDER_CODES = [...LIVE_PROVIDER_STATES, "gone", "not-visible", "unknown"] as const;
export type ProviderCode = (typeof PROVIDER_CODES)[number];

/**
 * CreateOS statuses of a sandbox that no longer exists. CreateOS keeps destroyed rows listed, so these
 * are the only evidence that lets a verdict say `gone`.
 */
export const TERMINAL_PROVIDER_STATUSES = ["destroyed", "failed"] as const;

/** The value the plugin writes into `metadata.provider` and checks first in `metadataMatches`. */
export const CREATEOS_PROVIDER = "createos";

/** CreateOS statuses that are billed as compute. */
export const BILLING_PROVIDER_STATES: readonly LiveProviderState[] = ["running", "creating", "resuming"];

/**
 * `in-use`: someone holds the sandbox now (a live run, or a session that holds no run, such as a login);
 * `login-session` says it is such a session. `warm`: a released reusable sandbox still running inside
 * the auto-pause window its lease recorded. `run-failing`: the run that holds the lease fails now,
 * because the plugin refuses every command and workspace call on it.
 */
export const ROW_FLAGS = [
  "stale-config",
  "leaking",
  "in-use",
  "host-cleanup",
  "shared",
  "login-session",
  "warm",
  "run-failing",
] as const;
export type RowFlag = (typeof ROW_FLAGS)[number];

/**
 * One headline per row, in precedence order: the first that applies wins. `closed` is history: the
 * lease is over and nothing of it lives at the provider, the normal end of most rows.
 */
export const HEADLINES = ["closed", "foreign", "stale", "leaking", "unknown", "ok"] as const;
export type Headline = (typeof HEADLINES)[number];

/** Headlines that ask nothing of an operator; every other headline counts as needing attention. */
export const QUIET_HEADLINES: readonly Headline[] = ["closed", "ok"];

/** Lease statuses Paperclip gives a lease that is over: it will never resume or release it again. */
export const ENDED_LEASE_STATUSES = ["released", "expired", "failed"] as const;

/** The generations of Paperclip's CreateOS plugin a lease is judged by (`plugin-generations.ts`). */
export const PLUGIN_GENERATIONS = ["createos-0.1", "createos-0.2", "createos-0.3"] as const;
export type PluginGeneration = (typeof PLUGIN_GENERATIONS)[number];

export const ACTION_KINDS = ["release", "destroy"] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** `click`: a confirmation click. `typed-id`: the operator types the sandbox id back (a forced destroy). */
export const DESTROY_CONFIRMATIONS = ["click", "typed-id"] as const;
export type DestroyConfirmation = (typeof DESTROY_CONFIRMATIONS)[number];

/** Lease statuses Paperclip defines today. Forks add others; unknown values are kept and shown. */
export const KNOWN_LEASE_STATUSES = [
  "active",
  "released",
  "expired",
  "failed",
  "retained",
  "pending_cleanup",
] as const;

export const KNOWN_LEASE_POLICIES = [
  "ephemeral",
  "reuse_by_environment",
  "reuse_by_execution_workspace",
  "retain_on_failure",
] as const;

/** The plugin's own refusal messages, verbatim, so operators can search for them. */
export const PLUGIN_MESSAGES = {
  foreignLease: "CreateOS lease does not belong to this environment.",
  cleanupInProgress: "CreateOS lease cleanup is already in progress.",
  missingApiKey: "CreateOS requires an API key in the environment config or CREATEOS_API_KEY.",
  apiUrlRule:
    "CreateOS API URL must be an HTTPS origin (optionally ending in /v1); HTTP is allowed on loopback only.",
  invalidResourceId: "CreateOS returned an invalid resource ID.",
} as const;
