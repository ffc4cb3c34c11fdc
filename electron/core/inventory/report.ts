import { HEADLINES, type Headline, QUIET_HEADLINES } from "../../../shared/domain/codes.js";
import { driftedFields } from "../../../shared/domain/config-drift.js";
import { type GapScope, gapScope } from "../../../shared/domain/gap-scope.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import { type PaperclipFacts, paperclipFacts } from "../../../shared/domain/judged-by.js";
import { metadataObject } from "../../../shared/domain/lease-metadata.js";
import { leaseStory, storyText } from "../../../shared/domain/lease-story.js";
import { listedEnvironmentId } from "../../../shared/domain/listed-environment.js";
import type { MarkerProof, ProofSubject } from "../../../shared/domain/marker-proof.js";
import type { SourceGap } from "../../../shared/domain/paperclip.js";
import type { PaperclipCallsAgain } from "../../../shared/domain/paperclip-will.js";
import { summarizeCounts } from "../../../shared/domain/reconcile.js";

/**
 * The scan as scripts read it (`leasekeeper scan --json`) and as a person reads it (the table). The
 * JSON shape is a stable interface: fields may be added, never renamed or removed.
 */
export type ReportedProof = Omit<MarkerProof, "subject">;

export interface ScanReport {
  generatedAt: string;
  requests: number;
  /**
   * Rows per headline over the leases reported, and how many of them need an operator (not closed, not
   * ok). They count the rows read: what a source could not read is in `gaps`, and is not in them.
   */
  counts: Record<Headline, number> & { attention: number };
  environments: {
    environmentId: string;
    companyId: string | null;
    /** The company's name where a source gave one. */
    companyName: string | null;
    name: string;
    sourceId: string;
    /**
     * False when the source listed the environment but could not read all its leases: a gap names it, or
     * a gap of its source names no environment and may hide a lease of any (`scope: "any-environment"`).
     */
    leasesRead: boolean;
    /** Rows per headline; null when its leases were not read, which is not the same as none. */
    counts: Record<Headline, number> | null;
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
    /**
     * The drawer's answers, from the same story of the verdict (`leaseStory`): why the row has its
     * headline (the red box, as plain text), the next step or why there is none, whether Paperclip will
     * call CreateOS about it again, and whether Paperclip will refuse to release it.
     */
    whatIsWrong: string;
    whatToDo: string | null;
    paperclipCallsAgain: PaperclipCallsAgain;
    refusesRelease: boolean;
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
  /**
   * What a source could not read; `environmentId` names the environment whose leases it left unread.
   * `scope` says what the gap may hide: that environment's leases (`environment`), a lease of any
   * environment of its source (`any-environment`: none of them is counted), or only environments the
   * source did not list (`unlisted-environments`: the listed ones keep their counts, and the source may
   * hold environments the report does not show).
   */
  gaps: {
    source: string;
    origin: string | null;
    message: string;
    environmentId: string | null;
    scope: GapScope;
  }[];
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
  const leases = inventory.leases.filter(
    (lease) => wanted === undefined || listedEnvironmentId(lease) === wanted,
  );
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
      .map(({ environmentId, companyId, name, sourceId, counts }) => {
        const leasesRead = uncountedBecause(inventory, environmentId, sourceId) === undefined;
        return {
          environmentId,
          companyId,
          companyName: companyId === null ? null : (companyNames.get(companyId) ?? null),
          name,
          sourceId,
          leasesRead,
          // The store counts an unread environment's rows as zeros: it has none because none were read.
          counts: leasesRead ? { ...counts } : null,
        };
      }),
    leases: leases.map((classified) => reportedLease(classified, fresh, options)),
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
    gaps: inventory.gaps.map(reportedGap),
    problems: inventory.problems.map(({ source, index, message }) => ({ source, index, message })),
    origins: inventory.origins,
    newSinceLastScan: leases.map((lease) => lease.lease.id).filter((id) => fresh.has(id)),
  };
}

/** One row as the report gives it (`ScanReport["leases"]`); `fresh` holds the lease ids new since the last scan. */
export function reportedLease(
  classified: ClassifiedLease,
  fresh: ReadonlySet<string>,
  options: Pick<ReportOptions, "proofFor"> = {},
): ScanReport["leases"][number] {
  const { lease, verdict, provider } = classified;
  const story = leaseStory(classified);
  return {
    leaseId: lease.id,
    environmentId: listedEnvironmentId(classified),
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
    paperclipWill: story.paperclipWill,
    whatIsWrong: storyText(story.whatIsWrong),
    whatToDo: story.whatToDo,
    paperclipCallsAgain: story.paperclipCallsAgain,
    refusesRelease: story.refusesRelease,
    ...paperclipFacts(classified),
    staleConfigFields: staleConfigFields(classified),
    destroyedBy:
      provider.actedOnBy?.effect === "delete"
        ? { jobId: provider.actedOnBy.jobId, at: provider.actedOnBy.at }
        : null,
    ...proofField(options, { kind: "lease", sourceId: classified.sourceId, leaseId: lease.id }),
  };
}

/** Whether an environment filter names anything the scan saw. */
export function knowsEnvironment(inventory: Inventory, environmentId: string): boolean {
  return (
    inventory.environments.some((environment) => environment.environmentId === environmentId) ||
    inventory.leases.some((lease) => listedEnvironmentId(lease) === environmentId)
  );
}

/** One gap as the report gives it (`ScanReport["gaps"]`). */
export function reportedGap({ source, origin, message, environmentId, unlistedOnly }: SourceGap) {
  return {
    source,
    origin,
    message,
    environmentId: environmentId ?? null,
    scope: gapScope({ environmentId, unlistedOnly }),
  } satisfies ScanReport["gaps"][number];
}

/**
 * The gap that names an environment as unread, if any: of its own source when `sourceId` is given,
 * else of any source (an environment whose config was hidden is listed by no source, only by its gap).
 */
export function unreadGap(
  inventory: Pick<Inventory, "gaps">,
  environmentId: string,
  sourceId?: string,
): Inventory["gaps"][number] | undefined {
  return inventory.gaps.find(
    (gap) => gap.environmentId === environmentId && (sourceId === undefined || gap.source === sourceId),
  );
}

/**
 * Why an environment a source lists has no known count, if it has none: a gap naming it, or a gap of
 * the same source that names no environment and may hide a lease of any of them. A gap that may hide
 * only environments the source did not list leaves the listed ones' counts true.
 */
export function uncountedBecause(
  inventory: Pick<Inventory, "gaps">,
  environmentId: string,
  sourceId: string,
): Inventory["gaps"][number] | undefined {
  return (
    unreadGap(inventory, environmentId, sourceId) ??
    inventory.gaps.find((gap) => gap.source === sourceId && gapScope(gap) === "any-environment")
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

/** `markerProof` for a row or sandbox that has one (without its subject: the entry names it). */
function proofField(options: ReportOptions, subject: ProofSubject): { markerProof?: ReportedProof } {
  const proof = options.proofFor?.(subject);
  if (!proof) return {};
  const { subject: _subject, ...markerProof } = proof;
  return { markerProof };
}
