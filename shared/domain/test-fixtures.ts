import type { ProviderCode } from "./codes.js";
import type { ProviderObservation, ProviderSandbox, SandboxListing, UnknownReason } from "./inventory.js";
import type { Environment, LeaseRow } from "./paperclip.js";

/**
 * Builders for the verdict tests: one environment, a lease the CreateOS plugin would have written for it,
 * and overrides for exactly what a case changes, so every table row reads as "the normal lease, except…".
 * Used by tests only.
 */

export const COMPANY = "company-a";
export const OTHER_COMPANY = "company-b";
export const ENV_ID = "env-prod";
export const OTHER_ENV_ID = "env-staging";
export const ORIGIN = "https://api.sb.createos.sh";
export const OLD_ORIGIN = "https://old.example";
export const MARKER = "0f8fad5b-d9cb-469f-a165-70867728950e";
export const SANDBOX = "sbx_1";
export const NOW = new Date("2026-09-10T12:00:00.000Z");

type EnvironmentOverrides = Partial<Omit<Environment, "config">> & {
  config?: Partial<Environment["config"]>;
};

export function environment(overrides: EnvironmentOverrides = {}): Environment {
  const { config, ...rest } = overrides;
  return {
    id: ENV_ID,
    companyId: COMPANY,
    name: "Production",
    driver: "sandbox",
    status: "active",
    ...rest,
    config: {
      provider: "createos",
      apiUrl: ORIGIN,
      shape: "s-1vcpu-1gb",
      rootfs: null,
      region: null,
      reuseLease: true,
      ...config,
    },
  };
}

/** The flat metadata the host stores for a CreateOS lease of `environment()`, with overrides. */
export function meta(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    driver: "sandbox",
    pluginKey: "createos",
    sandboxProviderPlugin: true,
    provider: "createos",
    apiUrl: ORIGIN,
    companyId: COMPANY,
    environmentId: ENV_ID,
    remoteCwd: "/paperclip-workspace",
    shellCommand: "bash",
    marker: MARKER,
    shape: "s-1vcpu-1gb",
    rootfs: null,
    region: null,
    reuseLease: true,
    ...overrides,
  };
}

let nextLease = 0;

export function row(overrides: Partial<LeaseRow> = {}): LeaseRow {
  nextLease += 1;
  return {
    id: `lease-${nextLease}`,
    companyId: COMPANY,
    environmentId: ENV_ID,
    executionWorkspaceId: null,
    issueId: null,
    heartbeatRunId: null,
    status: "released",
    leasePolicy: "reuse_by_environment",
    provider: "createos",
    providerLeaseId: SANDBOX,
    acquiredAt: "2026-09-10T10:00:00.000Z",
    lastUsedAt: "2026-09-10T11:00:00.000Z",
    expiresAt: null,
    releasedAt: "2026-09-10T11:00:00.000Z",
    failureReason: null,
    cleanupStatus: "success",
    metadata: meta(),
    createdAt: null,
    updatedAt: null,
    ...overrides,
  };
}

/** What observeProvider would report for a sandbox listed (or not) at ORIGIN. */
export function observation(
  code: ProviderCode,
  overrides: Partial<ProviderObservation> = {},
): ProviderObservation {
  const listed = code !== "unknown" && code !== "not-visible";
  return {
    code,
    origin: ORIGIN,
    originFrom: "lease-metadata",
    credential: listed ? "key-a" : null,
    observedAt: listed ? NOW.toISOString() : null,
    rawStatus: listed ? (code === "gone" ? "destroyed" : code) : null,
    unknownReason: code === "unknown" ? "no-credential" : null,
    sandbox: listed ? { id: SANDBOX, status: code === "gone" ? "destroyed" : code } : null,
    ...overrides,
  };
}

export function sandbox(id: string, status: string): ProviderSandbox {
  return { id, status };
}

export function okListing(origin: string, credential: string, sandboxes: ProviderSandbox[]): SandboxListing {
  return { origin, credential, outcome: { ok: true, sandboxes, observedAt: NOW.toISOString() } };
}

export function failedListing(origin: string, credential: string, reason: UnknownReason): SandboxListing {
  return { origin, credential, outcome: { ok: false, reason } };
}
