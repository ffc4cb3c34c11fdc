import { HEADLINES, type Headline, QUIET_HEADLINES } from "../../../shared/domain/codes.js";
import { driftedFields } from "../../../shared/domain/config-drift.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import { type PaperclipFacts, paperclipFacts } from "../../../shared/domain/judged-by.js";
import { metadataObject } from "../../../shared/domain/lease-metadata.js";
import type { MarkerProof, ProofSubject } from "../../../shared/domain/marker-proof.js";
import { paperclipWill } from "../../../shared/domain/paperclip-will.js";
import { summarizeCounts } from "../../../shared/domain/reconcile.js";

/**
 * The scan as scripts read it (`leasekeeper scan --json`) and as a person reads it (the table). The
 * JSON shape is a stable interface: fields may be added, never renamed or removed.
 */
export type ReportedProof = Omit<MarkerProof, "subject">;

export interface ScanReport {
  generatedAt: string;
  requests: number;
  /** Rows per headline over the leases reported, and how many of them need an operator (not closed, not ok). */
  counts: Record<Headline, number> & { attention: number };
  environments: {
    environmentId: string;
    companyId: string | null;
    /** The company's name where a source gave one. */
    companyName: string | null;
    name: string;
    sourceId: string;
    counts: Record<Headline, number>;
  }[];
  leases: {
    leaseId: string;
    environmentId: string | null;
    companyId: string;
    sandboxId: string | null;
    status: string;
    headline: Headline;
    ownership: string[];
    provider: string;
    flags: string[];
    allowedActions: string[];
    destroyConfirmation: string | null;
    sourceId: string;
    providerStatus: string | null;
    origin: string | null;
    unknownReason: string | null;
    sharedWith: string[];
    newSinceLastScan: boolean;
    /** One sentence of what Paperclip itself will do with the lease. */
    paperclipWill: string;
    /** The plugin generations the lease was judged by, and each reading taken where one was not known. */
    judgedBy: PaperclipFacts["judgedBy"];
    /** What a release does at CreateOS (pause, keep-warm, delete, nothing) and whose release it is. */
    release: PaperclipFacts["release"];
    /** Set when the run or session holding the lease fails now; the plugin's messages verbatim. */
    runFails: PaperclipFacts["runFails"];
    /** When a warm sandbox's auto-pause window ends, for a lease flagged `warm`. */
    warmUntil: string | null;
    /** Paperclip's cleanup attempts and whether it escalated, for a `pending_cleanup` lease. */
    pendingCleanup: PaperclipFacts["pendingCleanup"];
    /** The config fields whose recorded value differs from the environment's (behind `stale-config`). */
    staleConfigFields: string[];
    /** Set when a Leasekeeper job deleted the sandbox (a destroy, or a release that deletes). */
    destroyedBy: { jobId: string; at: string } | null;
    /** The latest marker proof kept for the row, when it was ever proven (the marker's prefix only). */
    markerProof?: ReportedProof;
  }[];
  untracked: {
    sandboxId: string;
    origin: string;
    status: string;
    credential: string;
    markerProof?: ReportedProof;
  }[];
  /** Sandboxes no row names at an origin where a source was incomplete: never orphans. */
  untrackedUncertain: {
    sandboxId: string;
    origin: string;
    status: string;
    credential: string;
    reason: string;
    markerProof?: ReportedProof;
  }[];
  companies: { id: string; name: string }[];
  gaps: { source: string; origin: string | null; message: string }[];
  problems: { source: string; index: number; message: string }[];
  origins: Inventory["origins"];
  newSinceLastScan: string[];
}

export interface ReportOptions {
  /** Only this environment's leases and summary. */
  environmentId?: string | undefined;
  newSinceLastScan?: readonly string[];
  /** The latest marker proof kept for a row or an untracked sandbox, if any. */
  proofFor?: (subject: ProofSubject) => MarkerProof | null;
}

export function scanReport(inventory: Inventory, options: ReportOptions = {}): ScanReport {
  const fresh = new Set(options.newSinceLastScan ?? []);
  const wanted = options.environmentId;
  const leases = inventory.leases.filter((lease) => wanted === undefined || environmentOf(lease) === wanted);
  const counts = summarizeCounts(leases);
  const companyNames = new Map(inventory.companies.map((company) => [company.id, company.name]));
  const attention = HEADLINES.filter((headline) => !QUIET_HEADLINES.includes(headline)).reduce(
    (sum, headline) => sum + counts[headline],
    0,
  );
  return {
    generatedAt: inventory.generatedAt,
    requests: inventory.requests,
    counts: { ...counts, attention },
    environments: inventory.environments
      .filter((environment) => wanted === undefined || environment.environmentId === wanted)
      .map(({ environmentId, companyId, name, sourceId, counts }) => ({
        environmentId,
        companyId,
        companyName: companyId === null ? null : (companyNames.get(companyId) ?? null),
        name,
        sourceId,
        counts: { ...counts },
      })),
    leases: leases.map((classified) => {
      const { lease, verdict, provider } = classified;
      return {
        leaseId: lease.id,
        environmentId: environmentOf(classified),
        companyId: lease.companyId,
        sandboxId: lease.providerLeaseId,
        status: lease.status,
        headline: verdict.headline,
        ownership: [...verdict.ownership],
        provider: verdict.provider,
        flags: [...verdict.flags],
        allowedActions: [...verdict.allowedActions],
        destroyConfirmation: verdict.destroyConfirmation,
        sourceId: classified.sourceId,
        providerStatus: provider.rawStatus,
        origin: provider.origin,
        unknownReason: provider.unknownReason,
        sharedWith: [...classified.sharedWith],
        newSinceLastScan: fresh.has(lease.id),
        paperclipWill: paperclipWill(classified),
        ...paperclipFacts(classified),
        staleConfigFields: staleConfigFields(classified),
        destroyedBy:
          provider.actedOnBy?.effect === "delete"
            ? { jobId: provider.actedOnBy.jobId, at: provider.actedOnBy.at }
            : null,
        ...proofField(options, { kind: "lease", sourceId: classified.sourceId, leaseId: lease.id }),
      };
    }),
    untracked: inventory.untracked.map(({ sandboxId, origin, status, credential }) => ({
      sandboxId,
      origin,
      status,
      credential,
      ...proofField(options, { kind: "untracked", origin, credential, sandboxId }),
    })),
    untrackedUncertain: inventory.untrackedUncertain.map(
      ({ sandboxId, origin, status, credential, reason }) => ({
        sandboxId,
        origin,
        status,
        credential,
        reason,
        ...proofField(options, { kind: "untracked", origin, credential, sandboxId }),
      }),
    ),
    companies: inventory.companies.map(({ id, name }) => ({ id, name })),
    gaps: inventory.gaps.map(({ source, origin, message }) => ({ source, origin, message })),
    problems: inventory.problems.map(({ source, index, message }) => ({ source, index, message })),
    origins: inventory.origins,
    newSinceLastScan: leases.map((lease) => lease.lease.id).filter((id) => fresh.has(id)),
  };
}

/** Whether an environment filter names anything the scan saw. */
export function knowsEnvironment(inventory: Inventory, environmentId: string): boolean {
  return (
    inventory.environments.some((environment) => environment.environmentId === environmentId) ||
    inventory.leases.some((lease) => environmentOf(lease) === environmentId)
  );
}

/** The fields behind a `stale-config` flag, in fingerprint order; none when the row has no such flag. */
export function staleConfigFields({
  lease,
  environment,
  verdict,
  installedPlugin,
}: ClassifiedLease): string[] {
  if (!verdict.flags.includes("stale-config") || environment === null) return [];
  const metadata = metadataObject(lease.metadata);
  return metadata === null ? [] : driftedFields(metadata, environment, installedPlugin);
}

function environmentOf(lease: ClassifiedLease): string | null {
  return lease.environment?.id ?? lease.lease.environmentId;
}

/** The readable form: one summary line per environment, its rows beneath, then orphans and problems. */
export function formatScanTable(report: ScanReport): string {
  const lines: string[] = [];
  const byEnvironment = new Map<string | null, ScanReport["leases"]>();
  for (const lease of report.leases) {
    const rows = byEnvironment.get(lease.environmentId) ?? [];
    rows.push(lease);
    byEnvironment.set(lease.environmentId, rows);
  }
  // A run that fails now is the one case where an agent is broken at this moment: it comes first.
  const order = (lease: ScanReport["leases"][number]) =>
    lease.runFails === null ? HEADLINES.indexOf(lease.headline) : -1;

  const failing = report.leases.filter((lease) => lease.runFails !== null);
  if (failing.length > 0) {
    lines.push(`Runs failing now (the plugin refuses the lease they hold): ${failing.length}`);
    lines.push(
      ...indent(
        table(
          ["LEASE", "ENVIRONMENT", "WHY"],
          failing.map((lease) => [
            lease.leaseId,
            lease.environmentId ?? "(none)",
            lease.runFails?.because ?? "",
          ]),
        ),
      ),
      "",
    );
  }

  for (const environment of report.environments) {
    const rows = (byEnvironment.get(environment.environmentId) ?? []).sort(
      (a, b) => order(a) - order(b) || a.leaseId.localeCompare(b.leaseId),
    );
    byEnvironment.delete(environment.environmentId);
    lines.push(
      `${environment.name} (${environment.environmentId}${companyLabel(environment)}): ${rows.length} lease${
        rows.length === 1 ? "" : "s"
      } — ${HEADLINES.map((headline) => `${environment.counts[headline]} ${headline}`).join(", ")}`,
    );
    if (rows.length > 0) lines.push(...indent(leaseTable(rows)), "");
  }
  for (const [environmentId, rows] of byEnvironment) {
    lines.push(`Rows whose environment ${environmentId ?? "(none)"} is not listed: ${rows.length}`);
    lines.push(...indent(leaseTable(rows)), "");
  }

  if (report.untracked.length > 0) {
    lines.push(`Untracked sandboxes (listed by CreateOS, named by no row): ${report.untracked.length}`);
    lines.push(
      ...indent(
        table(
          ["SANDBOX", "STATUS", "ORIGIN", "CREDENTIAL"],
          report.untracked.map((sandbox) => [
            sandbox.sandboxId,
            sandbox.status,
            sandbox.origin,
            sandbox.credential,
          ]),
        ),
      ),
      "",
    );
  }
  if (report.untrackedUncertain.length > 0) {
    lines.push(
      `Unnamed sandboxes Leasekeeper cannot judge (a source was incomplete at their origin): ${report.untrackedUncertain.length}`,
    );
    lines.push(
      ...indent(
        table(
          ["SANDBOX", "STATUS", "ORIGIN", "REASON"],
          report.untrackedUncertain.map((sandbox) => [
            sandbox.sandboxId,
            sandbox.status,
            sandbox.origin,
            sandbox.reason,
          ]),
        ),
      ),
      "",
    );
  }
  const failed = report.origins.filter((origin) => !origin.ok);
  for (const origin of failed) {
    const status = origin.httpStatus === null ? "" : ` (HTTP ${origin.httpStatus})`;
    lines.push(
      `Could not list ${origin.origin} with ${origin.credential}: ${origin.reason}${status}; its rows are unknown.`,
    );
  }
  if (report.problems.length > 0) {
    lines.push(`Problems (rows skipped): ${report.problems.length}`);
    for (const problem of report.problems)
      lines.push(`  ${problem.source} #${problem.index}: ${problem.message}`);
  }
  lines.push(
    `${report.counts.attention} lease${report.counts.attention === 1 ? "" : "s"} need attention; ${report.counts.closed} closed (history).`,
  );
  lines.push(
    `Scanned ${report.generatedAt} with ${report.requests} CreateOS request${report.requests === 1 ? "" : "s"}.`,
  );
  return `${lines.join("\n")}\n`;
}

/** The company an environment belongs to in the older, company-scoped shape; current ones are shared. */
function companyLabel(environment: ScanReport["environments"][number]): string {
  if (environment.companyId === null) return ", shared by every company";
  return `, company ${environment.companyName ?? environment.companyId}`;
}

function leaseTable(rows: ScanReport["leases"]): string[] {
  return table(
    ["LEASE", "SANDBOX", "STATUS", "HEADLINE", "PROVIDER", "OWNERSHIP", "FLAGS", "ACTIONS"],
    rows.map((lease) => [
      `${lease.newSinceLastScan ? "*" : ""}${lease.leaseId}`,
      lease.sandboxId ?? "-",
      lease.status,
      lease.headline,
      lease.provider,
      lease.ownership.join(",") || "-",
      lease.flags.join(",") || "-",
      lease.allowedActions
        .map((action) =>
          action === "destroy" && lease.destroyConfirmation === "typed-id" ? "destroy(typed-id)" : action,
        )
        .join(",") || "-",
    ]),
  );
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

function indent(lines: string[]): string[] {
  return lines.map((line) => `  ${line}`);
}

/** `markerProof` for a row or sandbox that has one (without its subject: the entry names it). */
function proofField(options: ReportOptions, subject: ProofSubject): { markerProof?: ReportedProof } {
  const proof = options.proofFor?.(subject);
  if (!proof) return {};
  const { subject: _subject, ...markerProof } = proof;
  return { markerProof };
}
