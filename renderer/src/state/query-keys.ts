import type { AuditQuery } from "../../../shared/domain/actions";

/** One key per contract channel (and its request), so invalidation names exactly what it refreshes. */
export const queryKeys = {
  appInfo: ["app:info"] as const,
  inventory: ["inventory:get"] as const,
  /** History pages and counts, per view generation, scope, search and provider chips. */
  historyPages: (key: readonly unknown[]) => ["inventory:history", "pages", ...key] as const,
  historyCount: (key: readonly unknown[]) => ["inventory:history", "count", ...key] as const,
  detail: (leaseId: string, sourceId: string | null) => ["leases:detail", leaseId, sourceId] as const,
  detailAll: ["leases:detail"] as const,
  untracked: (credential: string, origin: string) => ["untracked:list", credential, origin] as const,
  untrackedAll: ["untracked:list"] as const,
  job: (jobId: string) => ["jobs:get", jobId] as const,
  jobs: (state?: string) => ["jobs:list", state ?? "all"] as const,
  jobsAll: ["jobs:list"] as const,
  audit: (query: Partial<AuditQuery>) => ["audit:query", query] as const,
  auditAll: ["audit:query"] as const,
  settings: ["settings:get"] as const,
  status: ["status:get"] as const,
};
