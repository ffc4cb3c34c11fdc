import { z } from "zod";

/**
 * Paperclip's JSON shapes for environments and lease rows, as its REST API and a ledger file carry them.
 * Parsing is strict about what identifies a row (ids, dates) and lenient about vocabularies: a status or
 * policy Paperclip does not define today is kept as the string it is, so the UI can show it.
 */

const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), "must be an ISO date");
const nullableIsoDate = isoDate
  .nullable()
  .optional()
  .transform((value) => value ?? null);
// An id must survive storage exactly: SQLite (the journal, the audit log) keeps text as UTF-8, which cannot
// carry an unpaired surrogate, so such an id would come back as a different string. Refused as malformed.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const StorableIdSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !UNPAIRED_SURROGATE.test(value), "must be well-formed Unicode");
const id = StorableIdSchema;
const nullableId = id
  .nullable()
  .optional()
  .transform((value) => value ?? null);

export const EnvironmentConfigSchema = z
  .object({
    provider: z.string().optional(),
    apiUrl: z.string().optional(),
    shape: z.string().nullable().optional(),
    rootfs: z.string().nullable().optional(),
    region: z.string().nullable().optional(),
    reuseLease: z.boolean().optional(),
    timeoutMs: z.number().optional(),
  })
  .passthrough();

/**
 * An environment in either of Paperclip's shapes: older versions scope it to one company (`companyId`),
 * current ones are instance-scoped and shared by every company (no `companyId`, kept here as null).
 * Fields this schema does not name are kept, so a newer Paperclip's additions are never fatal.
 */
export const EnvironmentSchema = z
  .object({
    id,
    companyId: nullableId,
    name: z.string().max(500),
    driver: z.string().default("sandbox"),
    status: z.string().default("active"),
    config: EnvironmentConfigSchema.default({}),
  })
  .passthrough();
export type Environment = z.infer<typeof EnvironmentSchema>;

/** A Paperclip company, as `GET /api/companies` lists it: the UI shows its name instead of its id. */
export const CompanySchema = z
  .object({
    id,
    name: z.string().max(500),
  })
  .passthrough();
export type Company = z.infer<typeof CompanySchema>;

/** `metadata` is deliberately `unknown`: null, a string, or another schema's shape all happen in the wild. */
export const LeaseRowSchema = z.object({
  id,
  companyId: id,
  environmentId: nullableId,
  executionWorkspaceId: nullableId,
  issueId: nullableId,
  heartbeatRunId: nullableId,
  status: z.string().min(1).max(100),
  leasePolicy: z.string().max(100).default("ephemeral"),
  provider: z
    .string()
    .max(200)
    .nullable()
    .optional()
    .transform((value) => value ?? null),
  providerLeaseId: z
    .string()
    .max(1000)
    .nullable()
    .optional()
    .transform((value) => value ?? null),
  acquiredAt: isoDate,
  lastUsedAt: isoDate,
  expiresAt: nullableIsoDate,
  releasedAt: nullableIsoDate,
  failureReason: z
    .string()
    .max(10_000)
    .nullable()
    .optional()
    .transform((value) => value ?? null),
  cleanupStatus: z
    .string()
    .max(100)
    .nullable()
    .optional()
    .transform((value) => value ?? null),
  metadata: z
    .unknown()
    .optional()
    .transform((value) => (value === undefined ? null : value)),
  createdAt: nullableIsoDate,
  updatedAt: nullableIsoDate,
  /**
   * The status of the run behind `heartbeatRunId`, for a source that can see it (Paperclip's database):
   * null when the run is missing, absent when the source cannot tell (REST, a ledger file).
   */
  heartbeatRunStatus: z.string().max(100).nullable().optional(),
  /**
   * The names of what holds the row, for a source that can read them (Paperclip's database, where it has
   * the tables): the agent whose run it is (a run has no name of its own), the issue's title and
   * identifier, the execution workspace's name. Null when the source read none (the row names no such
   * thing, or it is gone); absent when the source cannot tell (REST, a ledger file).
   */
  agentName: z.string().max(400).nullable().optional(),
  issueTitle: z.string().max(400).nullable().optional(),
  issueIdentifier: z.string().max(400).nullable().optional(),
  executionWorkspaceName: z.string().max(400).nullable().optional(),
  /**
   * What became of the row's environment, for a source that can see it: `deleted`, or `now <driver>` when
   * the environment no longer runs on CreateOS. Absent while the environment is as the row expects.
   */
  environmentChange: z.string().max(200).optional(),
  /**
   * Set when the source's scan left the host's bookkeeping out of the metadata (`HOST_BOOKKEEPING_KEYS`,
   * which no judgement reads): where the whole of it is shown or written back (a lease's detail, a
   * repair), the row is read again by id.
   */
  partialMetadata: z.literal(true).optional(),
  /**
   * Set when the row's environment is one its source holds but could not parse: the environment exists
   * and is not known, which is not the same as a row whose environment was deleted or never named.
   */
  environmentUnread: z.literal(true).optional(),
});
export type LeaseRow = z.infer<typeof LeaseRowSchema>;

/**
 * Something a source could not read completely (an environment it could not parse, a config it was not
 * shown, a lease list that failed). While a gap stands, a sandbox that no row names may belong to a row
 * the source could not see, so it is never called an orphan. `origin` is the API origin the gap concerns
 * when it is known; null means it could hide a lease at any origin.
 */
export interface SourceGap {
  source: string;
  origin: string | null;
  message: string;
  /**
   * The environment whose leases the gap leaves unread, when that is known: one the source listed whose
   * leases it could not read at all (its lease list failed, or its config was hidden), one it could not
   * parse but whose id it read, or the one an unreadable lease row belongs to. That environment alone is
   * then said to be unread rather than counted; a gap without it may concern any environment of its
   * source, unless `unlistedOnly` says otherwise.
   */
  environmentId?: string;
  /**
   * Set on a gap naming no environment when all it may hide is environments the source did not list (a
   * key shown no company, an environment entry whose id cannot be read): the leases of every environment
   * the source listed were read, but the source may hold environments that are not shown. Absent, a gap
   * naming no environment may hide a lease of any of its source's environments (a lease entry whose
   * environment cannot be read), as a gap kept before this field was read.
   */
  unlistedOnly?: true;
}

/** A row or environment a source could not use, reported with where it was and why; never fatal. */
export interface SourceProblem {
  source: string;
  index: number;
  message: string;
}
