// The JSON shapes Paperclip keeps: an environment with its CreateOS config,
// and every column of `environment_leases`, dates as ISO strings.

export interface CreateosEnvironmentConfig {
  provider: "createos";
  apiUrl: string;
  shape: string;
  rootfs: string;
  region: string;
  reuseLease: boolean;
  timeoutMs: number;
}

export interface LedgerEnvironment {
  id: string;
  /** The owner in older, company-scoped Paperclip; current environments are shared and carry none. */
  companyId?: string;
  name: string;
  driver: "sandbox";
  status: "active" | "archived";
  config: CreateosEnvironmentConfig;
}

export interface LedgerLease {
  id: string;
  companyId: string;
  environmentId: string;
  executionWorkspaceId: string | null;
  issueId: string | null;
  heartbeatRunId: string | null;
  /** Usually one of ENVIRONMENT_LEASE_STATUSES; forks write others ("paused"), so it stays a string. */
  status: string;
  leasePolicy: string;
  provider: string;
  providerLeaseId: string | null;
  acquiredAt: string;
  lastUsedAt: string;
  /** Set only where the host lets a lease lapse (a login session). */
  expiresAt: string | null;
  releasedAt: string | null;
  failureReason: string | null;
  cleanupStatus: "pending" | "success" | "failed" | null;
  /** Flat as the host writes it, or whatever an older or foreign writer left: null, a string, nested. */
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface Ledger {
  /** The companies' names, so a console reading the file can name them (the rows carry only ids). */
  companies?: { id: string; name: string }[];
  environments: LedgerEnvironment[];
  leases: LedgerLease[];
}

export const KNOWN_LEASE_STATUSES = [
  "active",
  "released",
  "expired",
  "failed",
  "retained",
  "pending_cleanup",
];
export const KNOWN_LEASE_POLICIES = [
  "ephemeral",
  "reuse_by_environment",
  "reuse_by_execution_workspace",
  "retain_on_failure",
];

/** Where the plugin writes the lease marker inside the sandbox. */
export const MARKER_PATH = "/paperclip-workspace/.paperclip-runtime/.paperclip-createos-lease";
