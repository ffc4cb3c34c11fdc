import type { SourceGap } from "../../../../shared/domain/paperclip.js";
import { withoutSecrets } from "../audit/redact.js";

/**
 * What the last look before a request may say of a part not read: its source's words, with no
 * configured key in them. Keys that cannot be listed cannot be cut out: the part then names its source
 * alone.
 */
export async function keylessGaps(
  gaps: SourceGap[],
  knownSecrets: (() => Promise<ReadonlySet<string>>) | undefined,
): Promise<SourceGap[]> {
  if (gaps.length === 0 || knownSecrets === undefined) return gaps;
  const secrets = await knownSecrets().catch(() => null);
  return gaps.map((gap) => ({
    ...gap,
    source: secrets === null ? gap.source : withoutSecrets(gap.source, secrets),
    message: secrets === null ? "a part could not be read" : withoutSecrets(gap.message, secrets),
  }));
}
