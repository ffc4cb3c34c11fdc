import type { AuditEntry, Job, JobItem, Plan } from "../../../shared/domain/actions.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import type { SimStats } from "../../../simulator/index.js";
import { ACTED_ROLES, MAX_RETRIES, type WorldEntry } from "./chaos-world.js";

/**
 * The promises a fault must never break, checked against what the simulator itself saw (its per-sandbox
 * request counts and its sandboxes' states), not against the engine's own account of what it did.
 * Each check returns violations as sentences; a run passes when there are none.
 */

const TERMINAL = new Set(["confirmed", "unconfirmed", "failed", "skipped", "cancelled"]);
/** Failures where the request may have reached CreateOS and only its answer was lost. */
const ANSWER_LOST = new Set(["timeout", "network"]);

export function mutatingRequests(stats: SimStats, sandboxId: string): number {
  const routes = stats.perSandbox[sandboxId] ?? {};
  return Object.entries(routes)
    .filter(([route]) => !route.startsWith("GET "))
    .reduce((sum, [, count]) => sum + count, 0);
}

export function deletesOf(stats: SimStats, sandboxId: string): number {
  return stats.perSandbox[sandboxId]?.["DELETE /v1/sandboxes/:id"] ?? 0;
}

// ── Inventory ────────────────────────────────────────────────────────────────────────────────────

export interface ScanCheck {
  violations: string[];
  rows: number;
  unknownRows: number;
}

/**
 * A scan under faults may know less than a fault-free scan, never something else: each row's provider
 * code is the ground truth's or `unknown`. In particular no row is `gone` or `not-visible` because a
 * listing failed, and a failing credential never makes another account's sandbox look untracked.
 */
export function checkScanAgainstTruth(truth: Inventory, faulted: Inventory): ScanCheck {
  const violations: string[] = [];
  const truthById = new Map(truth.leases.map((row) => [`${row.sourceId}/${row.lease.id}`, row]));
  let unknownRows = 0;
  for (const row of faulted.leases) {
    const key = `${row.sourceId}/${row.lease.id}`;
    const expected = truthById.get(key);
    if (expected === undefined) {
      violations.push(`row ${key} appeared only under faults`);
      continue;
    }
    truthById.delete(key);
    const got = row.verdict.provider;
    const want = expected.verdict.provider;
    if (got === "unknown") unknownRows += 1;
    if (got !== want && got !== "unknown") {
      violations.push(`row ${key}: provider ${got} under faults, ${want} in truth (only unknown may differ)`);
    }
    if (got === "unknown" && row.verdict.allowedActions.includes("destroy")) {
      violations.push(`row ${key}: unknown but destroy is allowed`);
    }
  }
  for (const key of truthById.keys()) violations.push(`row ${key} went missing under faults`);
  // By id: an orphan listed at two origins (a renamed API domain) is reported once, at the first listing
  // that succeeded, so under faults it may be reported at the other origin; it must not appear from nowhere.
  const truthUntracked = new Set(truth.untracked.map((sandbox) => sandbox.sandboxId));
  for (const sandbox of faulted.untracked) {
    if (!truthUntracked.has(sandbox.sandboxId)) {
      violations.push(`sandbox ${sandbox.sandboxId} called untracked only under faults`);
    }
  }
  return { violations, rows: faulted.leases.length, unknownRows };
}

/** What the lease store and the simulator hold, read from them directly, not from any scan. */
export interface ScanHoldings {
  /** Every lease id the lease store (Paperclip, or the ledger) holds. */
  leaseIds: readonly string[];
  /** Every sandbox id the simulator holds, in every account. */
  sandboxIds: readonly string[];
}

/**
 * The items a scan lost, one sentence each: a lease the store holds that no row shows, or a sandbox the
 * simulator holds that no row names and no listing shows although the listing the fault-free scan found it
 * in succeeded. A row shown `unknown` is not lost (the scan knows less), nor is an orphan whose listing failed.
 */
export function lostInScan(held: ScanHoldings, truth: Inventory, faulted: Inventory): string[] {
  const lost: string[] = [];
  const rows = new Set(faulted.leases.map((row) => row.lease.id));
  for (const leaseId of held.leaseIds) if (!rows.has(leaseId)) lost.push(`lease ${leaseId}: no row shows it`);
  const shown = new Set([
    ...faulted.leases.map((row) => row.lease.providerLeaseId).filter((id): id is string => id != null),
    ...faulted.untracked.map((sandbox) => sandbox.sandboxId),
    ...(faulted.untrackedUncertain ?? []).map((sandbox) => sandbox.sandboxId),
  ]);
  const listedAt = new Map(truth.untracked.map((sandbox) => [sandbox.sandboxId, sandbox]));
  const named = new Set(truth.leases.map((row) => row.lease.providerLeaseId));
  const listingOk = (origin: string, credential: string) =>
    faulted.origins.some(
      (health) => health.origin === origin && health.credential === credential && health.ok,
    );
  for (const sandboxId of held.sandboxIds) {
    if (shown.has(sandboxId)) continue;
    const orphan = listedAt.get(sandboxId);
    if (orphan === undefined && !named.has(sandboxId)) lost.push(`sandbox ${sandboxId}: no scan shows it`);
    else if (orphan !== undefined && listingOk(orphan.origin, orphan.credential))
      lost.push(`sandbox ${sandboxId}: its listing succeeded, yet the scan does not show it`);
  }
  return lost;
}

// ── Jobs ─────────────────────────────────────────────────────────────────────────────────────────

export interface JobCheckInput {
  entries: readonly WorldEntry[];
  plan: Plan;
  /** Every job run over the plan, in order (the first, then resumes and retries). */
  jobs: readonly Job[];
  audit: readonly AuditEntry[];
  stats: SimStats;
  statuses: ReadonlyMap<string, string>;
}

export interface JobCheck {
  violations: string[];
  items: number;
  itemsLost: number;
  outcomes: Record<string, number>;
  mutatingRequests: number;
}

export function checkJobs(input: JobCheckInput): JobCheck {
  const { entries, plan, jobs, stats, statuses } = input;
  const violations: string[] = [];
  const entryBySandbox = new Map(entries.map((entry) => [entry.sandboxId, entry]));
  const planItems = new Map(plan.items.map((item) => [item.itemId, item]));

  // The last word on each item: later jobs (resume, retry-failed) supersede earlier ones.
  const finalItems = new Map<string, JobItem>();
  const jobsPerItem = new Map<string, Job[]>();
  for (const job of jobs) {
    if (job.state === "running") violations.push(`job ${job.jobId} is still running after it was awaited`);
    for (const item of job.items) {
      finalItems.set(item.itemId, item);
      jobsPerItem.set(item.itemId, [...(jobsPerItem.get(item.itemId) ?? []), job]);
    }
  }

  // Never silently missing: every plan item ends in a terminal state, with a reason when not confirmed.
  let itemsLost = 0;
  const outcomes: Record<string, number> = {};
  for (const planItem of plan.items) {
    const item = finalItems.get(planItem.itemId);
    if (item === undefined) {
      itemsLost += 1;
      violations.push(`plan item ${planItem.itemId} (${planItem.sandboxId}) is in no job`);
      continue;
    }
    outcomes[item.state] = (outcomes[item.state] ?? 0) + 1;
    if (!TERMINAL.has(item.state)) {
      itemsLost += 1;
      violations.push(`item ${item.sandboxId} ended ${item.state}`);
    }
    if (item.state !== "confirmed" && (item.reason === null || item.message === null)) {
      violations.push(`item ${item.sandboxId} ended ${item.state} without a reason and a message`);
    }
  }

  // Nothing outside the plan touched: only plan items to do, of a role the world lets act, see a write.
  const mayAct = new Set(
    plan.items
      .filter((item) => item.decision === "do")
      .filter((item) => {
        const entry = entryBySandbox.get(item.sandboxId ?? "");
        return entry !== undefined && ACTED_ROLES.includes(entry.role);
      })
      .map((item) => item.sandboxId as string),
  );
  let mutating = 0;
  for (const sandboxId of Object.keys(stats.perSandbox)) {
    const writes = mutatingRequests(stats, sandboxId);
    mutating += writes;
    if (writes > 0 && !mayAct.has(sandboxId)) {
      const role = entryBySandbox.get(sandboxId)?.role ?? "not in the world";
      violations.push(
        `sandbox ${sandboxId} (${role}) received ${writes} write(s) but was not to be acted on`,
      );
    }
  }

  // Each outcome matches what the simulator saw, and the audit log says the same as the job.
  const auditByJobItem = new Map<string, AuditEntry[]>();
  for (const entry of input.audit) {
    if (entry.kind !== "item") continue;
    const key = `${entry.jobId}/${entry.itemId ?? entry.sandboxId}`;
    auditByJobItem.set(key, [...(auditByJobItem.get(key) ?? []), entry]);
  }
  for (const job of jobs) {
    for (const item of job.items) {
      if (!TERMINAL.has(item.state)) continue;
      const recorded = auditByJobItem.get(`${job.jobId}/${item.itemId}`) ?? [];
      if (recorded.length !== 1) {
        violations.push(
          `job ${job.jobId} item ${item.sandboxId}: ${recorded.length} audit entries, expected 1`,
        );
        continue;
      }
      const entry = recorded[0] as AuditEntry;
      if (entry.outcome !== item.state || entry.sandboxId !== item.sandboxId) {
        violations.push(
          `audit says ${entry.outcome} for ${entry.sandboxId}, the job says ${item.state} for ${item.sandboxId}`,
        );
      }
      if (entry.httpStatus !== item.httpStatus) {
        violations.push(
          `audit HTTP ${entry.httpStatus} vs job HTTP ${item.httpStatus} for ${item.sandboxId}`,
        );
      }
    }
  }

  for (const [itemId, item] of finalItems) {
    const sandboxId = item.sandboxId;
    if (sandboxId === null) continue;
    const status = statuses.get(sandboxId) ?? null;
    const destroyed = status === null || status === "destroyed" || status === "failed";
    const destroying = destroyed || status === "destroying";
    const writes = mutatingRequests(stats, sandboxId);
    const history = jobsPerItem.get(itemId) ?? [];
    const planItem = planItems.get(itemId);
    if (item.state === "confirmed") {
      if (item.effect === "delete" && !destroyed) {
        violations.push(`${sandboxId} confirmed destroyed, but the simulator holds it ${status}`);
      }
      if (item.effect === "pause" && status !== "paused" && !destroyed) {
        violations.push(`${sandboxId} confirmed paused, but the simulator holds it ${status}`);
      }
    }
    if (
      item.state === "failed" &&
      item.effect === "delete" &&
      destroying &&
      !ANSWER_LOST.has(item.reason ?? "")
    ) {
      violations.push(
        `${sandboxId} reported failed (${item.reason}) but the simulator holds it ${status}; only a lost answer may explain that`,
      );
    }
    if (item.state === "unconfirmed" && writes === 0) {
      violations.push(`${sandboxId} reported unconfirmed but no write ever reached the simulator`);
    }
    const everSent = history.some((job) => {
      const seen = job.items.find((candidate) => candidate.itemId === itemId);
      return seen !== undefined && !["skipped", "cancelled", "pending"].includes(seen.state);
    });
    if ((item.state === "skipped" || item.state === "cancelled") && !everSent && writes > 0) {
      violations.push(
        `${sandboxId} ended ${item.state} (nothing sent) but the simulator saw ${writes} write(s)`,
      );
    }
    if (
      item.state === "failed" &&
      ["provider-unknown", "source-unreadable", "no-credential", "invalid-item"].includes(
        item.reason ?? "",
      ) &&
      history.length === 1 &&
      writes > 0
    ) {
      violations.push(
        `${sandboxId} failed before acting (${item.reason}) but the simulator saw ${writes} write(s)`,
      );
    }
    // Retries are bounded: one call per job, and at most 1 + maxRetries attempts per call (pause: two calls
    // when CreateOS answers 409).
    const callsPerJob = planItem?.effect === "pause" ? 2 : 1;
    const bound = history.length * callsPerJob * (1 + MAX_RETRIES);
    if (writes > bound) {
      violations.push(`${sandboxId} received ${writes} writes; the retry policy allows at most ${bound}`);
    }
  }

  return { violations, items: plan.items.length, itemsLost, outcomes, mutatingRequests: mutating };
}
