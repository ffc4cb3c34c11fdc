import { LIMIT_MESSAGES, type SettingsUpdate, SettingsUpdateSchema } from "../../../../shared/contract";
import { fieldErrors } from "./field-errors";

export interface LimitsDraft {
  rate: string;
  interval: string;
}

export type LimitsCheck =
  | { ok: true; request: Required<Pick<SettingsUpdate, "rateLimitPerMinute" | "refreshIntervalSeconds">> }
  | { ok: false; errors: Partial<Record<"rateLimitPerMinute" | "refreshIntervalSeconds", string>> };

/** What the operator typed, checked by the same schema main applies, with its sentences. */
export function checkLimits(draft: LimitsDraft): LimitsCheck {
  const rate = asNumber(draft.rate);
  const interval = asNumber(draft.interval);
  const check = SettingsUpdateSchema.safeParse({
    rateLimitPerMinute: rate,
    refreshIntervalSeconds: interval,
  });
  const errors: Partial<Record<"rateLimitPerMinute" | "refreshIntervalSeconds", string>> = check.success
    ? {}
    : fieldErrors(check.error);
  // Number("") is 0 and Number("1e3") is 1000: only plain digits are a whole number to the operator.
  if (!/^\d+$/.test(draft.rate.trim())) errors.rateLimitPerMinute = LIMIT_MESSAGES.rateWhole;
  if (!/^\d+$/.test(draft.interval.trim())) errors.refreshIntervalSeconds = LIMIT_MESSAGES.intervalWhole;
  if (errors.rateLimitPerMinute || errors.refreshIntervalSeconds || !check.success)
    return { ok: false, errors };
  return { ok: true, request: { rateLimitPerMinute: rate, refreshIntervalSeconds: interval } };
}

function asNumber(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? Number.NaN : Number(trimmed);
}
