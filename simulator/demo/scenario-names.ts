// Every situation a lease console must recognise, by name; scenarios.ts plants each one.

export const SCENARIOS = [
  "owned-running",
  "owned-paused-warm",
  "foreign-company",
  "foreign-environment",
  "foreign-provider",
  "api-url-changed",
  "metadata-missing",
  "no-sandbox-id",
  "stale-config",
  "malformed-marker",
  "gone",
  "not-visible",
  "unknown",
  "leaking",
  "in-use",
  "host-cleanup",
  "shared",
  "untracked",
  "unknown-status",
  "unknown-policy",
  "login-session",
  "warm-reusable",
  "warm-expired",
  "api-url-not-origin",
  "config-rejected",
  "run-failing",
] as const;

export type Scenario = (typeof SCENARIOS)[number];
