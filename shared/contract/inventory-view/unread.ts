import { gapScope } from "../../domain/gap-scope.js";
import type { SourceGap } from "../../domain/paperclip.js";
import type { UnreadView } from "./schema.js";

type Gap = Pick<SourceGap, "source" | "message" | "environmentId" | "unlistedOnly">;

function keyOf(sourceId: string, environmentId: string | null): string {
  return JSON.stringify([sourceId, environmentId]);
}

/**
 * What `gaps` leave unread of `environments` (the view's, in its order), as the view carries it: worked
 * out over every gap where they are all held, since the view lists only the first of them. A gap is read
 * by what it may hide (`gapScope`).
 */
export function unreadOfGaps(
  gaps: readonly Gap[],
  environments: readonly { sourceId: string; environmentId: string | null }[],
): UnreadView {
  // A source may give one environment two entries: a gap naming it concerns both.
  const positions = new Map<string, number[]>();
  environments.forEach(({ sourceId, environmentId }, at) => {
    const key = keyOf(sourceId, environmentId);
    const held = positions.get(key);
    if (held) held.push(at);
    else positions.set(key, [at]);
  });
  const byEnvironment: (string | null)[] = environments.map(() => null);
  const elsewhere = new Set<string>();
  const anyEnvironment = new Map<string, string>();
  const unlisted = new Map<string, { source: string; message: string; count: number }>();
  for (const gap of gaps) {
    const scope = gapScope(gap);
    if (scope === "environment") {
      const key = keyOf(gap.source, gap.environmentId ?? null);
      const at = positions.get(key);
      if (at === undefined) elsewhere.add(key);
      else for (const position of at) byEnvironment[position] ??= gap.message;
    } else if (scope === "any-environment") {
      if (!anyEnvironment.has(gap.source)) anyEnvironment.set(gap.source, gap.message);
    } else {
      const note = unlisted.get(gap.source);
      if (note) note.count += 1;
      else unlisted.set(gap.source, { source: gap.source, message: gap.message, count: 1 });
    }
  }
  return {
    byEnvironment,
    namedElsewhere: elsewhere.size,
    anyEnvironment: [...anyEnvironment].map(([source, message]) => ({ source, message })),
    unlistedEnvironments: [...unlisted.values()],
  };
}
