import { z } from "zod";
import type {
  ActionKind,
  DestroyConfirmation,
  OwnershipCode,
  ProviderCode,
  RowFlag,
} from "../../domain/codes.js";
import { HEADLINES, type Headline } from "../../domain/codes.js";
import { UNKNOWN_REASONS, type UnknownReason } from "../../domain/inventory.js";

/**
 * The compact inventory that crosses the contract (under 250 bytes per row at 20,000 rows). Strings that
 * repeat (environments, companies, origins, statuses, policies, shapes) travel once in lookup tables; the leases
 * travel as columns, one named array per field, each entry an index into a table, a bit mask (masks.ts)
 * or epoch seconds. Columns keep the wire as small as one tuple per row did, and copy between threads
 * several times faster (arrays of small integers instead of one array object per row). The table decodes
 * it with `decodeInventoryRows`; everything else about a lease comes on demand through `leases:detail`.
 */

/** -1 means "none" for every index. */
const index = z.number().int().min(-1);
const mask = z.number().int().min(0);
const count = z.number().int().min(0);

/** The leases, column by column; entry `i` of every column belongs to lease `i`. */
export const LeaseColumnsSchema = z
  .object({
    leaseId: z.array(z.string()),
    /** Index into `environments`. */
    environment: z.array(index),
    sandboxId: z.array(z.string().nullable()),
    /** Index into `statuses`: the row's status as the source wrote it. */
    status: z.array(index),
    /** Index into `policies`. */
    policy: z.array(index),
    /** Index into HEADLINES. */
    headline: z.array(index),
    /** Index into PROVIDER_CODES. */
    provider: z.array(index),
    /** Bit i = OWNERSHIP_CODES[i]. */
    ownership: z.array(mask),
    /** Bit i = ROW_FLAGS[i]. */
    flags: z.array(mask),
    /** Bit i = ACTION_KINDS[i] allowed; bit (i + ACTION_KINDS.length) = overridable. */
    actions: z.array(mask),
    /** 0 none, else DESTROY_CONFIRMATIONS[n - 1]. */
    confirmation: z.array(count),
    /** Index into `origins`: where the provider state was read. */
    origin: z.array(index),
    /** Epoch seconds. */
    acquiredAt: z.array(z.number().int()),
    /** Epoch seconds. */
    lastUsedAt: z.array(z.number().int()),
    /** How many other rows name the same sandbox. */
    shared: z.array(count),
    /** Index into `companies`: the row's own companyId. */
    company: z.array(index),
    /** Index into UNKNOWN_REASONS. */
    unknownReason: z.array(index),
    /** Index into `actedOn`: what a Leasekeeper job did to the sandbox, -1 when none. */
    actedOnBy: z.array(index),
    /** Index into `shapes`: as CreateOS lists the sandbox, else as the lease recorded it. */
    shape: z.array(index),
  })
  .refine((columns) => Object.values(columns).every((column) => column.length === columns.leaseId.length), {
    message: "every lease column has one entry per lease",
  });
export type LeaseColumns = z.infer<typeof LeaseColumnsSchema>;

/** Columns with no lease in them. */
export function emptyLeaseColumns(): LeaseColumns {
  return Object.fromEntries(LEASE_COLUMNS.map((name) => [name, []])) as unknown as LeaseColumns;
}

/** The column names, in one place for code that walks every column (slicing, joining). */
export const LEASE_COLUMNS = [
  "leaseId",
  "environment",
  "sandboxId",
  "status",
  "policy",
  "headline",
  "provider",
  "ownership",
  "flags",
  "actions",
  "confirmation",
  "origin",
  "acquiredAt",
  "lastUsedAt",
  "shared",
  "company",
  "unknownReason",
  "actedOnBy",
  "shape",
] as const satisfies readonly (keyof LeaseColumns)[];

const HeadlineCountsSchema = z.object(
  Object.fromEntries(HEADLINES.map((headline) => [headline, z.number().int().min(0)])) as Record<
    Headline,
    z.ZodNumber
  >,
);

/** A destroy or release a Leasekeeper job confirmed, as the rows it touched refer to it. */
export const LeasekeeperActionViewSchema = z.object({
  action: z.enum(["destroy", "release"]),
  effect: z.enum(["pause", "delete"]),
  jobId: z.string(),
  at: z.string(),
  operator: z.string(),
});
export type LeasekeeperActionView = z.infer<typeof LeasekeeperActionViewSchema>;

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
  /** The environment whose leases the source could not read; absent when the gap names none. */
  environmentId: z.string().optional(),
  /** Set when a gap naming no environment may hide only environments its source did not list (`SourceGap`). */
  unlistedOnly: z.literal(true).optional(),
});

/**
 * What the sources' gaps leave unread, told of every gap: `gaps` lists only the first
 * MAX_PROBLEMS_IN_VIEW, and an environment only a later gap names is no more read than one the first
 * names. Its size grows with the environments and the sources, not with the gaps (`unreadOfGaps`).
 */
export const UnreadViewSchema = z.object({
  /** Entry i: the words of the first gap naming `environments[i]`, or null when no gap names it. */
  byEnvironment: z.array(z.string().nullable()),
  /** How many environments gaps name that `environments` has no entry for, each once per source. */
  namedElsewhere: count,
  /** Each source with a gap naming no environment that may hide a lease of any of its environments. */
  anyEnvironment: z.array(z.object({ source: z.string(), message: z.string() })),
  /** Each source whose gaps may hide only environments it did not list, and how many gaps say so. */
  unlistedEnvironments: z.array(z.object({ source: z.string(), message: z.string(), count })),
});
export type UnreadView = z.infer<typeof UnreadViewSchema>;

/**
 * The history (`closed` rows) the view leaves out of `leases`: most rows of a long-lived instance, and
 * they ask nothing of anyone. Counted here from the rows left out, so the chips and the sidebar stay
 * true; the rows themselves come a page at a time through `inventory:history` (history-page.ts).
 */
export const HistoryCountsSchema = z.object({
  /** Closed rows left out of `leases`. */
  count,
  /** Entry i: closed rows left out under `environments[i]`. */
  byEnvironment: z.array(count),
});
export type HistoryCounts = z.infer<typeof HistoryCountsSchema>;

/**
 * The version of the view's shape, counted up when it changes in a way a reader must know: a view kept
 * in a store under an older one is not shown (the worker's own replaces it). 1 (unwritten): every row in
 * `leases`. 2: history left out of `leases`, counted in `history`. 3: what every gap leaves unread in
 * `unread`, and every gap counted in `gapCount`.
 */
export const INVENTORY_VIEW_VERSION = 3;

export const InventoryViewSchema = z.object({
  version: z.literal(INVENTORY_VIEW_VERSION),
  /**
   * The worker's generation of the inventory this view shows, as main received it (history pages say
   * theirs, so a page of another inventory is told apart); absent on a view read from a store.
   */
  generation: z.number().int().min(0).optional(),
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
  /** The actions rows point at (`actedOnBy`); a sandbox several rows name is listed once. */
  actedOn: z.array(LeasekeeperActionViewSchema),
  /** Every lease but history, one named column per field (see `LeaseColumnsSchema`). */
  leases: LeaseColumnsSchema,
  history: HistoryCountsSchema,
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
  /** The first MAX_PROBLEMS_IN_VIEW gaps, to be listed; what is unread is read from `unread`. */
  gaps: z.array(SourceGapViewSchema),
  /** Every gap, listed or not. */
  gapCount: count,
  unread: UnreadViewSchema,
  originHealth: z.array(OriginHealthViewSchema),
  problems: z.array(SourceProblemViewSchema),
  problemCount: z.number().int().min(0),
});
export type InventoryView = z.infer<typeof InventoryViewSchema>;

/**
 * A view read back from a store is shown only in the current shape (an older one carried history in
 * `leases`, or told unread only what its first gaps named).
 */
export function isCurrentView(view: Partial<InventoryView> | null | undefined): view is InventoryView {
  return (
    view?.version === INVENTORY_VIEW_VERSION &&
    view.generatedAt !== undefined &&
    Array.isArray(view.leases?.leaseId) &&
    Array.isArray(view.history?.byEnvironment) &&
    Array.isArray(view.unread?.byEnvironment)
  );
}

/** What rows are decoded from: the lease columns and the lookup tables they index (a view, or a history page). */
export const RowTablesSchema = InventoryViewSchema.pick({
  environments: true,
  companies: true,
  companyNames: true,
  origins: true,
  statuses: true,
  policies: true,
  shapes: true,
  actedOn: true,
  leases: true,
});
export type RowTables = z.infer<typeof RowTablesSchema>;

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
