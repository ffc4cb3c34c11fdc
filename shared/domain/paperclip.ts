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

export const EnvironmentSchema = z.object({
  id,
  companyId: id,
  name: z.string().max(500),
  driver: z.string().default("sandbox"),
  status: z.string().default("active"),
  config: EnvironmentConfigSchema.default({}),
});
export type Environment = z.infer<typeof EnvironmentSchema>;

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
});
export type LeaseRow = z.infer<typeof LeaseRowSchema>;

/** A row or environment a source could not use, reported with where it was and why; never fatal. */
export interface SourceProblem {
  source: string;
  index: number;
  message: string;
}
