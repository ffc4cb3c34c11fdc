import { LIMIT_MESSAGES, type SettingsUpdate, SettingsUpdateSchema } from "../../../../shared/contract";
import { fieldErrors } from "./field-errors";

export interface LimitsDraft {
  rate: string;
  interval: string;
  typedCount: string;
}

type LimitField = "rateLimitPerMinute" | "refreshIntervalSeconds" | "typedCountAbove";

export type LimitsCheck =
  | { ok: true; request: Required<Pick<SettingsUpdate, LimitField>> }
  | { ok: false; errors: Partial<Record<LimitField, string>> };

const WHOLE_NUMBER_MESSAGES: Record<LimitField, string> = {
  rateLimitPerMinute: LIMIT_MESSAGES.rateWhole,
  refreshIntervalSeconds: LIMIT_MESSAGES.intervalWhole,
  typedCountAbove: LIMIT_MESSAGES.typedCountWhole,
};

/** What the operator typed, checked by the same schema main applies, with its sentences. */
export function checkLimits(draft: LimitsDraft): LimitsCheck {
  const typed: Record<LimitField, string> = {
    rateLimitPerMinute: draft.rate,
    refreshIntervalSeconds: draft.interval,
    typedCountAbove: draft.typedCount,
  };
  const request = {
    rateLimitPerMinute: asNumber(draft.rate),
    refreshIntervalSeconds: asNumber(draft.interval),
    typedCountAbove: asNumber(draft.typedCount),
  };
  const check = SettingsUpdateSchema.safeParse(request);
  const errors: Partial<Record<LimitField, string>> = check.success ? {} : fieldErrors(check.error);
  // Number("") is 0 and Number("1e3") is 1000: only plain digits are a whole number to the operator.
  for (const field of Object.keys(typed) as LimitField[]) {
    if (!/^\d+$/.test(typed[field].trim())) errors[field] = WHOLE_NUMBER_MESSAGES[field];
  }
  if (Object.keys(errors).length > 0 || !check.success) return { ok: false, errors };
  return { ok: true, request };
}

function asNumber(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? Number.NaN : Number(trimmed);
}
