import { z } from "zod";
import { PlanSchema } from "../domain/actions.js";
import { MarkerProofSchema } from "./marker-proof.js";

/**
 * A plan as the plan dialog receives it: the engine's plan, and for each forced item (one that needs its
 * sandbox id typed back) the marker proof read just before the confirmation is asked, keyed by item id.
 * `unprovenForced` counts the forced items left unread because there were more than one plan may read.
 * `inventoryGeneratedAt` is when the inventory the plan was made over was scanned: main may plan over one
 * kept from an earlier scan (a minute old, or loaded from the store), so the dialog says when, not "just now".
 */
export const PlanPreviewSchema = PlanSchema.extend({
  forcedProofs: z.record(z.string(), MarkerProofSchema).optional(),
  unprovenForced: z.number().int().optional(),
  inventoryGeneratedAt: z.string().optional(),
});
export type PlanPreview = z.infer<typeof PlanPreviewSchema>;
