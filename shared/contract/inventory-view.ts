import { z } from "zod";
import {
  ACTION_KINDS,
  type ActionKind,
  DESTROY_CONFIRMATIONS,
  type DestroyConfirmation,
  HEADLINES,
  type Headline,
  OWNERSHIP_CODES,
  type OwnershipCode,
  PROVIDER_CODES,
  type ProviderCode,
  ROW_FLAGS,
  type RowFlag,
} from "../domain/codes.js";
import { type Inventory, UNKNOWN_REASONS, type UnknownReason } from "../domain/inventory.js";
import { metadataObject, recorded } from "../domain/lease-metadata.js";

/**
 * The compact inventory that crosses the contract (under 250 bytes per row at 20,000 rows).
 * Strings that repeat (environments, companies, origins, statuses, policies) travel once in lookup tables;
 * each lease is one tuple of indices, bit masks and epoch seconds. The table decodes it with
 * `decodeInventoryRows`; everything else about a lease comes on demand through `leases:detail`.
 */

/** Positions in a row tuple. */
export const ROW = {
  leaseId: 0,
  environment: 1,
  sandboxId: 2,
  status: 3,
  policy: 4,
  headline: 5,
  provider: 6,
  ownership: 7,
  flags: 8,
  actions: 9,
  confirmation: 10,
  origin: 11,
  acquiredAt: 12,
  lastUsedAt: 13,
  shared: 14,
  company: 15,
  unknownReason: 16,
  actedOnBy: 17,
  shape: 18,
} as const;

const index = z.number().int().min(-1);
const mask = z.number().int().min(0);

/** One lease: see `ROW` for the meaning of each position; -1 means "none" for every index. */
export const LeaseRowTupleSchema = z.tuple([
  z.string(), // lease id
  index, // environment index
  z.string().nullable(), // sandbox id
  index, // row status index (statuses table)
  index, // lease policy index (policies table)
  index, // headline index (HEADLINES)
  index, // provider code index (PROVIDER_CODES)
  mask, // ownership codes, bit i = OWNERSHIP_CODES[i]
  mask, // row flags, bit i = ROW_FLAGS[i]
  mask, // bit i = ACTION_KINDS[i] allowed; bit (i + ACTION_KINDS.length) = overridable
  z.number().int().min(0), // 0 none, else DESTROY_CONFIRMATIONS[n - 1]
  index, // origin index (origins table)
  z.number().int(), // acquiredAt, epoch seconds
  z.number().int(), // lastUsedAt, epoch seconds
  z.number().int().min(0), // number of other rows naming the same sandbox
  index, // company index (companies table), the row's own companyId
  index, // unknown reason index (UNKNOWN_REASONS)
  index, // what a Leasekeeper job did to the sandbox (actedOn table), -1 when none
  index, // shape index (shapes table): as CreateOS lists the sandbox, else as the lease recorded it
]);
export type LeaseRowTuple = z.infer<typeof LeaseRowTupleSchema>;

const HeadlineCountsSchema = z.object(
  Object.fromEntries(HEADLINES.map((headline) => [headline, z.number().int().min(0)])) as Record<
    Headline,
    z.ZodNumber
  >,
);

/** An environment as rows refer to it. `known: false` marks rows whose environment the source no longer lists. */
export const EnvironmentRefSchema = z.object({
  sourceId: z.string(),
  environmentId: z.string().nullable(),
  company: index,
  name: z.string(),
  known: z.boolean(),
  counts: HeadlineCountsSchema,
});
export type EnvironmentRef = z.infer<typeof EnvironmentRefSchema>;

export const OriginHealthViewSchema = z.object({
  origin: z.string(),
  credential: z.string(),
  ok: z.boolean(),
  reason: z.enum(UNKNOWN_REASONS).nullable(),
  httpStatus: z.number().int().nullable(),
  sandboxCount: z.number().int().min(0),
});

export const SourceProblemViewSchema = z.object({
  source: z.string(),
  index: z.number().int(),
  message: z.string(),
});

/** At most this many source problems travel with the inventory; `problemCount` gives the total. */
export const MAX_PROBLEMS_IN_VIEW = 200;

/** Something a source could not read completely; while it stands, no sandbox at its origin is an orphan. */
export const SourceGapViewSchema = z.object({
  source: z.string(),
  origin: z.string().nullable(),
  message: z.string(),
});

/** A destroy or release a Leasekeeper job confirmed, as the rows it touched refer to it. */
export const LeasekeeperActionViewSchema = z.object({
  action: z.enum(["destroy", "release"]),
  effect: z.enum(["pause", "delete"]),
  jobId: z.string(),
  at: z.string(),
  operator: z.string(),
});
export type LeasekeeperActionView = z.infer<typeof LeasekeeperActionViewSchema>;

export const InventoryViewSchema = z.object({
  generatedAt: z.string(),
  requests: z.number().int().min(0),
  /** The environment filter the view was cut to, or null for all environments. */
  environmentId: z.string().nullable(),
  environments: z.array(EnvironmentRefSchema),
  companies: z.array(z.string()),
  /** The name of each entry of `companies`, where a source named it; null where none did. */
  companyNames: z.array(z.string().nullable()),
  origins: z.array(z.string()),
  statuses: z.array(z.string()),
  policies: z.array(z.string()),
  shapes: z.array(z.string()),
  /** The actions rows point at (`ROW.actedOnBy`); a sandbox several rows name is listed once. */
  actedOn: z.array(LeasekeeperActionViewSchema),
  rows: z.array(LeaseRowTupleSchema),
  untracked: z.array(
    z.object({ credential: z.string(), origin: z.string(), count: z.number().int().min(0) }),
  ),
  /** Unnamed sandboxes that cannot be called orphans (a source was incomplete at their origin). */
  untrackedUncertain: z.array(
    z.object({
      credential: z.string(),
      origin: z.string(),
      count: z.number().int().min(0),
      reason: z.string(),
    }),
  ),
  gaps: z.array(SourceGapViewSchema),
  originHealth: z.array(OriginHealthViewSchema),
  problems: z.array(SourceProblemViewSchema),
  problemCount: z.number().int().min(0),
});
export type InventoryView = z.infer<typeof InventoryViewSchema>;

/** A lease row as the table uses it: plain fields, arrays shared between rows with the same codes. */
export interface LeaseRowView {
  leaseId: string;
  sourceId: string;
  environmentId: string | null;
  environmentName: string;
  environmentKnown: boolean;
  companyId: string | null;
  /** The company's name where a source gave it, else null (show the id). */
  companyName: string | null;
  sandboxId: string | null;
  status: string;
  leasePolicy: string;
  headline: Headline;
  provider: ProviderCode;
  unknownReason: UnknownReason | null;
  ownership: readonly OwnershipCode[];
  flags: readonly RowFlag[];
  allowedActions: readonly ActionKind[];
  overridableActions: readonly ActionKind[];
  destroyConfirmation: DestroyConfirmation | null;
  /** The origin the provider state was read at (the row's recorded apiUrl), or null. */
  origin: string | null;
  acquiredAtMs: number;
  lastUsedAtMs: number;
  sharedCount: number;
  /** What a Leasekeeper job did to this row's sandbox (destroyed or released it), by whom and when. */
  actedOnBy: LeasekeeperActionView | null;
  /** The sandbox's shape (s-2vcpu-4gb): as CreateOS lists it, else as the lease recorded it; null if neither. */
  shape: string | null;
}

function toMask<T extends string>(vocabulary: readonly T[], values: readonly T[]): number {
  let bits = 0;
  for (const value of values) {
    const at = vocabulary.indexOf(value);
    if (at >= 0) bits |= 1 << at;
  }
  return bits;
}

function fromMask<T extends string>(vocabulary: readonly T[], bits: number): T[] {
  const values: T[] = [];
  for (let at = 0; at < vocabulary.length; at++) if (bits & (1 << at)) values.push(vocabulary[at]!);
  return values;
}

/** Masks repeat across thousands of rows; decoding shares one frozen array per distinct mask. */
function maskDecoder<T extends string>(vocabulary: readonly T[]): (bits: number) => readonly T[] {
  const cache = new Map<number, readonly T[]>();
  return (bits) => {
    let values = cache.get(bits);
    if (!values) {
      values = Object.freeze(fromMask(vocabulary, bits));
      cache.set(bits, values);
    }
    return values;
  };
}

/** A short shape string recorded in the lease's metadata, for a sandbox the listing did not show. */
function recordedShape(metadata: unknown): string | null {
  const object = metadataObject(metadata);
  const shape = object === null ? undefined : recorded(object, "shape");
  return typeof shape === "string" && shape.length <= 100 ? shape : null;
}

function epochSeconds(iso: string | null | undefined): number {
  if (!iso) return 0;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

class Interner {
  readonly values: string[] = [];
  private readonly positions = new Map<string, number>();
  indexOf(value: string | null | undefined): number {
    if (value === null || value === undefined) return -1;
    let at = this.positions.get(value);
    if (at === undefined) {
      at = this.values.length;
      this.values.push(value);
      this.positions.set(value, at);
    }
    return at;
  }
}

function emptyCounts(): Record<Headline, number> {
  return Object.fromEntries(HEADLINES.map((headline) => [headline, 0])) as Record<Headline, number>;
}

export interface EncodeOptions {
  /** Keep only rows listed under this environment id. */
  environmentId?: string | null;
}

/** Inventory (main side) → the compact view that crosses the contract. */
export function encodeInventory(inventory: Inventory, options: EncodeOptions = {}): InventoryView {
  const filter = options.environmentId ?? null;
  const companies = new Interner();
  const origins = new Interner();
  const statuses = new Interner();
  const policies = new Interner();
  const shapes = new Interner();
  const actedOn: LeasekeeperActionView[] = [];
  const actedOnIndex = new Map<object, number>();
  const actedOnAt = (mark: LeasekeeperActionView | null | undefined): number => {
    if (mark == null) return -1;
    let position = actedOnIndex.get(mark);
    if (position === undefined) {
      position = actedOn.length;
      actedOn.push({ ...mark });
      actedOnIndex.set(mark, position);
    }
    return position;
  };
  const environments: EnvironmentRef[] = [];
  const environmentIndex = new Map<string, number>();
  const synthesized = new Set<number>();
  const environmentKey = (sourceId: string, environmentId: string | null) =>
    JSON.stringify([sourceId, environmentId]);

  for (const summary of inventory.environments) {
    if (filter !== null && summary.environmentId !== filter) continue;
    environmentIndex.set(environmentKey(summary.sourceId, summary.environmentId), environments.length);
    environments.push({
      sourceId: summary.sourceId,
      environmentId: summary.environmentId,
      company: companies.indexOf(summary.companyId),
      name: summary.name,
      known: true,
      counts: { ...emptyCounts(), ...summary.counts },
    });
  }

  const rows: LeaseRowTuple[] = [];
  for (const classified of inventory.leases) {
    const { lease, verdict, provider } = classified;
    const environmentId = classified.environment?.id ?? lease.environmentId;
    if (filter !== null && environmentId !== filter) continue;
    const key = environmentKey(classified.sourceId, environmentId);
    let environmentAt = environmentIndex.get(key);
    if (environmentAt === undefined) {
      // A row whose environment the source does not list (an orphan): give it an entry of its own.
      environmentAt = environments.length;
      environmentIndex.set(key, environmentAt);
      synthesized.add(environmentAt);
      environments.push({
        sourceId: classified.sourceId,
        environmentId,
        company: companies.indexOf(classified.environment?.companyId ?? lease.companyId),
        name: classified.environment?.name ?? "",
        known: classified.environment !== null,
        counts: emptyCounts(),
      });
    }
    // Listed environments carry the scanner's counts; an entry made here counts its own rows.
    if (synthesized.has(environmentAt)) environments[environmentAt]!.counts[verdict.headline] += 1;

    const confirmation = verdict.destroyConfirmation
      ? DESTROY_CONFIRMATIONS.indexOf(verdict.destroyConfirmation) + 1
      : 0;
    const actions =
      toMask(ACTION_KINDS, verdict.allowedActions) |
      (toMask(ACTION_KINDS, verdict.overridableActions) << ACTION_KINDS.length);
    rows.push([
      lease.id,
      environmentAt,
      lease.providerLeaseId,
      statuses.indexOf(lease.status),
      policies.indexOf(lease.leasePolicy),
      HEADLINES.indexOf(verdict.headline),
      PROVIDER_CODES.indexOf(provider.code),
      toMask(OWNERSHIP_CODES, verdict.ownership),
      toMask(ROW_FLAGS, verdict.flags),
      actions,
      confirmation,
      origins.indexOf(provider.origin),
      epochSeconds(lease.acquiredAt),
      epochSeconds(lease.lastUsedAt),
      classified.sharedWithCount ?? classified.sharedWith.length,
      companies.indexOf(lease.companyId),
      provider.unknownReason ? UNKNOWN_REASONS.indexOf(provider.unknownReason) : -1,
      actedOnAt(provider.actedOnBy),
      shapes.indexOf(provider.sandbox?.shape ?? recordedShape(lease.metadata)),
    ]);
  }

  const uncertainCounts = new Map<
    string,
    { credential: string; origin: string; count: number; reason: string }
  >();
  for (const sandbox of inventory.untrackedUncertain) {
    const key = JSON.stringify([sandbox.credential, sandbox.origin]);
    const entry = uncertainCounts.get(key) ?? {
      credential: sandbox.credential,
      origin: sandbox.origin,
      count: 0,
      reason: sandbox.reason,
    };
    entry.count += 1;
    uncertainCounts.set(key, entry);
  }
  const companyName = new Map(inventory.companies.map((company) => [company.id, company.name]));

  const untrackedCounts = new Map<string, { credential: string; origin: string; count: number }>();
  for (const sandbox of inventory.untracked) {
    const key = JSON.stringify([sandbox.credential, sandbox.origin]);
    const entry = untrackedCounts.get(key) ?? {
      credential: sandbox.credential,
      origin: sandbox.origin,
      count: 0,
    };
    entry.count += 1;
    untrackedCounts.set(key, entry);
  }

  return {
    generatedAt: inventory.generatedAt,
    requests: inventory.requests,
    environmentId: filter,
    environments,
    companies: companies.values,
    companyNames: companies.values.map((id) => companyName.get(id) ?? null),
    origins: origins.values,
    statuses: statuses.values,
    policies: policies.values,
    shapes: shapes.values,
    actedOn,
    rows,
    untracked: [...untrackedCounts.values()],
    untrackedUncertain: [...uncertainCounts.values()],
    gaps: inventory.gaps.slice(0, MAX_PROBLEMS_IN_VIEW).map(({ source, origin, message }) => ({
      source,
      origin,
      message,
    })),
    originHealth: inventory.origins.map((health) => ({
      origin: health.origin,
      credential: health.credential,
      ok: health.ok,
      reason: health.reason,
      httpStatus: health.httpStatus,
      sandboxCount: health.sandboxCount,
    })),
    problems: inventory.problems.slice(0, MAX_PROBLEMS_IN_VIEW).map((problem) => ({
      source: problem.source,
      index: problem.index,
      message: problem.message,
    })),
    problemCount: inventory.problems.length,
  };
}

const NO_ENVIRONMENT: EnvironmentRef = {
  sourceId: "",
  environmentId: null,
  company: -1,
  name: "",
  known: false,
  counts: emptyCounts(),
};

/** The compact view → plain row objects for the table. */
export function decodeInventoryRows(view: InventoryView): LeaseRowView[] {
  const ownership = maskDecoder(OWNERSHIP_CODES);
  const flags = maskDecoder(ROW_FLAGS);
  const actionKinds = maskDecoder(ACTION_KINDS);
  const actionMask = (1 << ACTION_KINDS.length) - 1;
  const at = <T>(table: readonly T[], position: number): T | null =>
    position >= 0 && position < table.length ? table[position]! : null;

  return view.rows.map((row) => {
    const environment = at(view.environments, row[ROW.environment]) ?? NO_ENVIRONMENT;
    const actions = row[ROW.actions];
    const confirmation = row[ROW.confirmation];
    return {
      leaseId: row[ROW.leaseId],
      sourceId: environment.sourceId,
      environmentId: environment.environmentId,
      environmentName: environment.name,
      environmentKnown: environment.known,
      companyId: at(view.companies, row[ROW.company]),
      companyName: at(view.companyNames, row[ROW.company]),
      sandboxId: row[ROW.sandboxId],
      status: at(view.statuses, row[ROW.status]) ?? "",
      leasePolicy: at(view.policies, row[ROW.policy]) ?? "",
      headline: at(HEADLINES, row[ROW.headline]) ?? "unknown",
      provider: at(PROVIDER_CODES, row[ROW.provider]) ?? "unknown",
      unknownReason: at(UNKNOWN_REASONS, row[ROW.unknownReason]),
      ownership: ownership(row[ROW.ownership]),
      flags: flags(row[ROW.flags]),
      allowedActions: actionKinds(actions & actionMask),
      overridableActions: actionKinds(actions >> ACTION_KINDS.length),
      destroyConfirmation: confirmation > 0 ? (at(DESTROY_CONFIRMATIONS, confirmation - 1) ?? null) : null,
      origin: at(view.origins, row[ROW.origin]),
      acquiredAtMs: row[ROW.acquiredAt] * 1000,
      lastUsedAtMs: row[ROW.lastUsedAt] * 1000,
      sharedCount: row[ROW.shared],
      actedOnBy: at(view.actedOn, row[ROW.actedOnBy]),
      shape: at(view.shapes, row[ROW.shape]),
    };
  });
}
