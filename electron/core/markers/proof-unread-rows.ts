import type { MarkerProof } from "../../../shared/domain/marker-proof.js";
import type { SourceGap } from "../../../shared/domain/paperclip.js";
import { unreadRowsAt } from "../../../shared/domain/unread-rows.js";

/**
 * Each proof with whether its scan left unread a part that may hold a row recording the marker. Its
 * owners are those of the rows read; a live lease's row in the part not read is not among them, so a
 * forced destroy never rests on such a proof.
 */
export function withUnreadRows(proofs: readonly MarkerProof[], gaps: readonly SourceGap[]): MarkerProof[] {
  const unreadAt = unreadRowsAt(gaps);
  return proofs.map((proof) => ({ ...proof, gapMayRecord: unreadAt(proof.origin) !== null }));
}
