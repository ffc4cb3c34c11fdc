/**
 * How a policy writes an age: a whole number and one unit, `30m`, `2h`, `7d`. One unit only, so a reader
 * never has to add `1h30m` in their head, and no seconds: a janitor that scans every few minutes cannot
 * honour them.
 */

export const DURATION_PATTERN = /^([1-9][0-9]{0,5})(m|h|d)$/;

export const DURATION_MESSAGE = "must be a duration like 30m, 2h or 7d";

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The duration in milliseconds, or null when the text is not one. */
export function durationMs(text: string): number | null {
  const match = DURATION_PATTERN.exec(text);
  if (match === null) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** "26 h", "3 d", "45 min": an age as the plan's reasons say it, rounded down to its largest unit. */
export function formatAge(ms: number): string {
  if (ms >= 2 * UNIT_MS.d) return `${Math.floor(ms / UNIT_MS.d)} d`;
  if (ms >= UNIT_MS.h) return `${Math.floor(ms / UNIT_MS.h)} h`;
  return `${Math.max(0, Math.floor(ms / UNIT_MS.m))} min`;
}
