import { z } from "zod";
import { QUARANTINE_MAX_HOURS, QuarantineSchema } from "../domain/quarantine.js";

/** Quarantine requests and answers as they cross to the renderer. */

const id = z.string().min(1).max(200);
const LIMIT = 500;

export const QuarantineRequestSchema = z
  .strictObject({
    leases: z
      .array(z.strictObject({ leaseId: id, sourceId: id.optional() }))
      .max(LIMIT)
      .default([]),
    untracked: z
      .array(z.strictObject({ sandboxId: id, origin: z.string().max(2048).optional() }))
      .max(LIMIT)
      .default([]),
    hours: z.number().positive().max(QUARANTINE_MAX_HOURS),
    /** The sandbox ids typed back, for those whose destroy would be forced. */
    confirmSandboxIds: z.array(id).max(LIMIT).default([]),
  })
  .refine((request) => request.leases.length + request.untracked.length > 0, {
    error: "name at least one lease or untracked sandbox",
  });

export const QuarantineOutcomeSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), quarantine: QuarantineSchema }),
  z.object({
    ok: z.literal(false),
    leaseId: z.string().nullable(),
    sandboxId: z.string().nullable(),
    reason: z.string(),
    message: z.string(),
  }),
]);

/** The most quarantines one list answer carries, newest first. */
export const QUARANTINE_LIST_LIMIT = 500;

export const QuarantineListRequestSchema = z.strictObject({ open: z.boolean().optional() });
export const QuarantineListSchema = z.object({
  /** Main's clock when it answered, so a countdown does not depend on the renderer's. */
  now: z.string(),
  quarantines: z.array(QuarantineSchema),
  /**
   * More are recorded than the newest `QUARANTINE_LIST_LIMIT` sent: the list is cut, so its length is not
   * how many there are, and one it does not hold may still be open.
   */
  cut: z.boolean(),
});
export type QuarantineList = z.infer<typeof QuarantineListSchema>;

export const QuarantineCancelSchema = z.strictObject({ quarantineId: id, resume: z.boolean().optional() });
export const QuarantineRefSchema = z.strictObject({ quarantineId: id });
