import { z } from "zod";
import {
  CANNOT_READ_REASONS,
  MARKER_ANSWERS,
  MARKER_PREFIX_LENGTH,
  NO_MARKER_REASONS,
} from "../domain/marker-proof.js";

/**
 * A marker proof as it crosses to the renderer: the answer, why, whose marker it was, and when it was
 * read. The marker itself never travels; `markerPrefix` is capped at its first characters by the schema,
 * so even a mistake upstream cannot carry a whole one across.
 */

const id = z.string().min(1).max(200);
const text = z.string();
const nullableText = z.string().nullable();

export const ProofSubjectSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("lease"), sourceId: text, leaseId: text }),
  z.object({ kind: z.literal("untracked"), origin: text, credential: text, sandboxId: text }),
]);

export const MarkerOwnerSchema = z.object({
  sourceId: text,
  leaseId: text,
  status: text,
  relation: z.enum(["no-sandbox-id", "names-this-sandbox", "names-another-sandbox"]),
});

export const MarkerProofSchema = z.object({
  subject: ProofSubjectSchema,
  sandboxId: nullableText,
  origin: nullableText,
  sandboxStatus: nullableText,
  answer: z.enum(MARKER_ANSWERS),
  reason: z.enum([...NO_MARKER_REASONS, ...CANNOT_READ_REASONS]).nullable(),
  owners: z.array(MarkerOwnerSchema),
  markerPrefix: z.string().max(MARKER_PREFIX_LENGTH).nullable(),
  message: text,
  readAt: text,
});
export type MarkerProofView = z.infer<typeof MarkerProofSchema>;

const PROVE_LIMIT = 500;

export const ProveRequestSchema = z
  .strictObject({
    leases: z
      .array(z.strictObject({ leaseId: id, sourceId: id.optional() }))
      .max(PROVE_LIMIT)
      .default([]),
    untracked: z
      .array(z.strictObject({ sandboxId: id, origin: z.string().max(2048).optional() }))
      .max(PROVE_LIMIT)
      .default([]),
  })
  .refine((request) => request.leases.length + request.untracked.length > 0, {
    error: "name at least one lease or untracked sandbox",
  })
  .refine((request) => request.leases.length + request.untracked.length <= PROVE_LIMIT, {
    error: `at most ${PROVE_LIMIT} sandboxes at a time`,
  });

export const ProveResponseSchema = z.object({ proofs: z.array(MarkerProofSchema) });
