import { originOf } from "./api-url.js";
import { TERMINAL_PROVIDER_STATUSES } from "./codes.js";
import type { OriginHealth, SandboxListing, UncertainSandbox, UntrackedSandbox } from "./inventory.js";
import type { SourceGap } from "./paperclip.js";

/**
 * Sandboxes that an OK listing shows alive and that no row names (`isNamed` says whether some row of the
 * inventory names the id, at any origin): orphans, such as the one a lost create response leaves behind.
 * A row naming the id at any origin counts: CreateOS never reuses an id, and one control plane can answer
 * at two API URLs (a renamed domain), listing the same sandboxes at both — calling those untracked would
 * invite a forced destroy of a sandbox a lease still names. Listed at several origins, an orphan is
 * reported once, at the first that listed it.
 */
export function untrackedSandboxes(
  listings: readonly SandboxListing[],
  isNamed: (sandboxId: string) => boolean,
): UntrackedSandbox[] {
  const untracked: UntrackedSandbox[] = [];
  const reported = new Set<string>();
  for (const listing of listings) {
    if (!listing.outcome.ok) continue;
    const origin = originOf(listing.origin) ?? listing.origin;
    for (const sandbox of listing.outcome.sandboxes) {
      if ((TERMINAL_PROVIDER_STATUSES as readonly string[]).includes(sandbox.status)) continue;
      if (reported.has(sandbox.id) || isNamed(sandbox.id)) continue;
      reported.add(sandbox.id);
      untracked.push({
        sandboxId: sandbox.id,
        origin,
        credential: listing.credential,
        status: sandbox.status,
        sandbox,
      });
    }
  }
  return untracked;
}

/**
 * A listed sandbox no row names is an orphan only if every source that could name it was read
 * completely: a gap at its origin (or a gap that could be at any origin) may hide the row that names it,
 * so such a sandbox is reported as uncertain, with the gaps as the reason, and never offered for destroy.
 */
export function splitByGaps(
  candidates: UntrackedSandbox[],
  gaps: readonly SourceGap[],
): { untracked: UntrackedSandbox[]; uncertain: UncertainSandbox[] } {
  if (gaps.length === 0) return { untracked: candidates, uncertain: [] };
  const anywhere = gaps.filter((gap) => gap.origin === null);
  const byOrigin = new Map<string, SourceGap[]>();
  for (const gap of gaps) {
    if (gap.origin === null) continue;
    const origin = originOf(gap.origin) ?? gap.origin;
    byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), gap]);
  }
  const untracked: UntrackedSandbox[] = [];
  const uncertain: UncertainSandbox[] = [];
  const reasons = new Map<string, string>();
  for (const candidate of candidates) {
    const hiding = [...(byOrigin.get(candidate.origin) ?? []), ...anywhere];
    if (hiding.length === 0) {
      untracked.push(candidate);
      continue;
    }
    let reason = reasons.get(candidate.origin);
    if (reason === undefined) {
      reason = uncertainReason(hiding);
      reasons.set(candidate.origin, reason);
    }
    uncertain.push({ ...candidate, reason });
  }
  return { untracked, uncertain };
}

const REASON_GAPS = 3;

function uncertainReason(gaps: readonly SourceGap[]): string {
  const named = gaps.slice(0, REASON_GAPS).map((gap) => `${gap.source}: ${gap.message}`);
  const more = gaps.length > REASON_GAPS ? `; and ${gaps.length - REASON_GAPS} more` : "";
  return `cannot tell: sources incomplete — ${named.join("; ")}${more}`;
}

/** How one credential's listing went, as the status bar and `scan --json` show it. */
export function originHealth(listing: SandboxListing): OriginHealth {
  const origin = originOf(listing.origin) ?? listing.origin;
  const { outcome } = listing;
  return outcome.ok
    ? {
        origin,
        credential: listing.credential,
        ok: true,
        reason: null,
        httpStatus: null,
        sandboxCount: outcome.sandboxes.length,
      }
    : {
        origin,
        credential: listing.credential,
        ok: false,
        reason: outcome.reason,
        httpStatus: outcome.httpStatus ?? null,
        sandboxCount: 0,
      };
}
