import type { EnvironmentRef, InventoryView } from "../../../../shared/contract";
import { originOf } from "../../../../shared/domain/api-url";
import { HEADLINES, type Headline } from "../../../../shared/domain/codes";
import { environmentKey, type UnreadEnvironment, unreadEnvironments } from "../../state/environment-key";

export interface EnvironmentNode {
  key: string;
  name: string;
  environmentId: string | null;
  known: boolean;
  /** Why this environment has no known count, and what of it is not known; null when it was read. */
  unread: UnreadEnvironment | null;
  counts: Record<Headline, number>;
  total: number;
  flagged: number;
}

export interface CompanyNode {
  /** The company's id, or `SHARED_ENVIRONMENTS` for the group of environments no company owns. */
  companyId: string;
  /** The company's name where a source gave one; the sidebar shows it, with the id on hover. */
  name: string | null;
  /** The instance's own environments (a current Paperclip's), which belong to no one company. */
  shared: boolean;
  environments: EnvironmentNode[];
  counts: Record<Headline, number>;
  total: number;
  /** False when one of its environments was not read or has no known count: its counts are of what was read. */
  complete: boolean;
}

export interface UntrackedNode {
  credential: string;
  origin: string;
  /** Orphans: unnamed sandboxes while every source loaded completely. */
  count: number;
  /** Unnamed sandboxes at this origin while a source was incomplete: never orphans. */
  uncertain: number;
  /** The last scan could not list this account: its counts say nothing, and it keeps its entry. */
  failed: boolean;
  /** The inventory shown records a listing of this account that succeeded: only then is a 0 known. */
  listed: boolean;
}

/** The key of the group of environments that belong to the instance, not to one company. */
export const SHARED_ENVIRONMENTS = "(shared by every company)";
/** How the sidebar names that group: a current Paperclip's environments are shared by every company. */
export const SHARED_ENVIRONMENTS_NAME = "Shared by every company";

const FLAGGED: readonly Headline[] = ["foreign", "stale", "leaking", "unknown"];

function zero(): Record<Headline, number> {
  return Object.fromEntries(HEADLINES.map((headline) => [headline, 0])) as Record<Headline, number>;
}

function add(into: Record<Headline, number>, from: Record<Headline, number>): void {
  for (const headline of HEADLINES) into[headline] += from[headline] ?? 0;
}

function node(environment: EnvironmentRef, unread: UnreadEnvironment | null): EnvironmentNode {
  const counts = { ...zero(), ...environment.counts };
  const total = HEADLINES.reduce((sum, headline) => sum + counts[headline], 0);
  const flagged = FLAGGED.reduce((sum, headline) => sum + counts[headline], 0);
  return {
    key: environmentKey(environment.sourceId, environment.environmentId),
    name: environment.name,
    environmentId: environment.environmentId,
    known: environment.known,
    unread,
    counts,
    total,
    flagged,
  };
}

/**
 * Companies, each with its environments, for the sidebar: the most flagged environment first, then by
 * name. Environments with the same key (one per source) are merged.
 */
export function buildTree(view: InventoryView): {
  companies: CompanyNode[];
  totals: Record<Headline, number>;
  /** False when a source could not read every lease: the totals are of the leases read. */
  totalsComplete: boolean;
} {
  const byCompany = new Map<string, Map<string, EnvironmentNode>>();
  const names = new Map<string, string>();
  const totals = zero();
  const unread = unreadEnvironments(view);
  for (const environment of view.environments) {
    const companyId =
      (environment.company >= 0 ? view.companies[environment.company] : undefined) ?? SHARED_ENVIRONMENTS;
    const name = environment.company >= 0 ? view.companyNames?.[environment.company] : null;
    if (name) names.set(companyId, name);
    const environments = byCompany.get(companyId) ?? new Map<string, EnvironmentNode>();
    byCompany.set(companyId, environments);
    const next = node(
      environment,
      unread.get(environmentKey(environment.sourceId, environment.environmentId)) ?? null,
    );
    const existing = environments.get(next.key);
    if (existing) {
      existing.unread ??= next.unread;
      add(existing.counts, next.counts);
      existing.total += next.total;
      existing.flagged += next.flagged;
    } else {
      environments.set(next.key, next);
    }
    add(totals, next.counts);
  }
  const companies = [...byCompany.entries()].map(([companyId, environments]) => {
    const list = [...environments.values()].sort(
      (a, b) => b.flagged - a.flagged || a.name.localeCompare(b.name) || a.key.localeCompare(b.key),
    );
    const counts = zero();
    for (const environment of list) add(counts, environment.counts);
    return {
      companyId,
      name: companyId === SHARED_ENVIRONMENTS ? SHARED_ENVIRONMENTS_NAME : (names.get(companyId) ?? null),
      shared: companyId === SHARED_ENVIRONMENTS,
      environments: list,
      counts,
      total: list.reduce((sum, e) => sum + e.total, 0),
      complete: list.every((environment) => environment.unread === null),
    };
  });
  // The shared environments first, then the companies by the name shown.
  companies.sort(
    (a, b) =>
      Number(b.shared) - Number(a.shared) || (a.name ?? a.companyId).localeCompare(b.name ?? b.companyId),
  );
  // Every gap may hide a lease: one of an environment shown, or of one not shown (named by a gap the view
  // has no entry for, or not listed at all), which no company's total can count either.
  return { companies, totals, totalsComplete: view.gapCount === 0 };
}

/** A source that may hold environments the sidebar does not show, with the first gap that says so. */
export interface UnlistedEnvironmentNote {
  source: string;
  message: string;
  /** The source's gaps that say so. */
  count: number;
}

/**
 * The sources whose gaps may hide only environments they did not list (a key shown no company, an
 * environment entry whose id cannot be read): the environments shown keep their counts, so this is the
 * one place that says the source may hold others. Main counts them over every gap, listed in the view
 * or not.
 */
export function unlistedEnvironmentNotes(view: Pick<InventoryView, "unread">): UnlistedEnvironmentNote[] {
  return view.unread.unlistedEnvironments.map((note) => ({ ...note }));
}

/** An account the config names: a credential and the origin it lists. */
export interface ConfiguredAccount {
  name: string;
  origin: string;
}

/**
 * One entry per account (credential) that lists sandboxes no lease row names, and per account the
 * config names that the inventory shown holds no listing of (`configured`; added since it was scanned):
 * its sandboxes were never counted, and an account left out reads as one with none.
 */
export function untrackedNodes(
  view: InventoryView,
  configured: readonly ConfiguredAccount[] = [],
): UntrackedNode[] {
  const nodes = new Map<string, UntrackedNode>();
  const nodeOf = (credential: string, origin: string) => {
    const key = JSON.stringify([credential, origin]);
    let node = nodes.get(key);
    if (node === undefined) {
      node = { credential, origin, count: 0, uncertain: 0, failed: false, listed: false };
      nodes.set(key, node);
    }
    return node;
  };
  for (const entry of view.untracked) nodeOf(entry.credential, entry.origin).count += entry.count;
  // An account whose unnamed sandboxes are all uncertain still gets an entry, so they can be seen.
  for (const entry of view.untrackedUncertain ?? [])
    nodeOf(entry.credential, entry.origin).uncertain += entry.count;
  // An account that could not be listed keeps its entry, marked, instead of vanishing as if it had none.
  for (const health of view.originHealth ?? []) {
    if (!health.ok) nodeOf(health.credential, health.origin).failed = true;
    else {
      const listed = nodes.get(JSON.stringify([health.credential, health.origin]));
      if (listed) listed.listed = true;
    }
  }
  const recorded = new Set(
    (view.originHealth ?? []).map((health) => JSON.stringify([health.credential, health.origin])),
  );
  for (const account of configured) {
    const origin = originOf(account.origin) ?? account.origin;
    if (!recorded.has(JSON.stringify([account.name, origin]))) nodeOf(account.name, origin);
  }
  return [...nodes.values()].sort(
    (a, b) => a.credential.localeCompare(b.credential) || a.origin.localeCompare(b.origin),
  );
}

export const FLAGGED_HEADLINES = FLAGGED;
