import { LIMIT_MESSAGES, type SettingsUpdate, SettingsUpdateSchema } from "../../../../shared/contract";
import { fieldErrors } from "./field-errors";

export interface LimitsDraft {
  rate: string;
  interval: string;
  typedCount: string;
  /** A price per vCPU-hour and per GiB-hour as typed; empty clears it, left out leaves it as it is. */
  vcpuPrice?: string;
  gibPrice?: string;
}

type WholeField = "rateLimitPerMinute" | "refreshIntervalSeconds" | "typedCountAbove";
type PriceField = "pricePerVcpuHour" | "pricePerGibHour";
type LimitField = WholeField | PriceField;

export type LimitsCheck =
  | {
      ok: true;
      request: Required<Pick<SettingsUpdate, WholeField>> & Pick<SettingsUpdate, PriceField>;
    }
  | { ok: false; errors: Partial<Record<LimitField, string>> };

const WHOLE_NUMBER_MESSAGES: Record<WholeField, string> = {
  rateLimitPerMinute: LIMIT_MESSAGES.rateWhole,
  refreshIntervalSeconds: LIMIT_MESSAGES.intervalWhole,
  typedCountAbove: LIMIT_MESSAGES.typedCountWhole,
};

/** What the operator typed, checked by the same schema main applies, with its sentences. */
export function checkLimits(draft: LimitsDraft): LimitsCheck {
  const typed: Record<WholeField, string> = {
    rateLimitPerMinute: draft.rate,
    refreshIntervalSeconds: draft.interval,
    typedCountAbove: draft.typedCount,
  };
  const prices: Partial<Record<PriceField, string>> = {
    ...(draft.vcpuPrice === undefined ? {} : { pricePerVcpuHour: draft.vcpuPrice }),
    ...(draft.gibPrice === undefined ? {} : { pricePerGibHour: draft.gibPrice }),
  };
  const request = {
    rateLimitPerMinute: asNumber(draft.rate),
    refreshIntervalSeconds: asNumber(draft.interval),
    typedCountAbove: asNumber(draft.typedCount),
    ...Object.fromEntries(
      Object.entries(prices).map(([field, text]) => [field, text.trim() === "" ? null : asNumber(text)]),
    ),
  };
  const check = SettingsUpdateSchema.safeParse(request);
  const errors: Partial<Record<LimitField, string>> = check.success ? {} : fieldErrors(check.error);
  // Number("") is 0 and Number("1e3") is 1000: only plain digits are a whole number to the operator.
  for (const field of Object.keys(typed) as WholeField[]) {
    if (!/^\d+$/.test(typed[field].trim())) errors[field] = WHOLE_NUMBER_MESSAGES[field];
  }
  // A price is a plain decimal ("0.04", ".5") or nothing.
  for (const [field, text] of Object.entries(prices) as [PriceField, string][]) {
    if (text.trim() !== "" && !/^(\d+(\.\d*)?|\.\d+)$/.test(text.trim()))
      errors[field] = LIMIT_MESSAGES.priceNumber;
  }
  if (Object.keys(errors).length > 0 || !check.success) return { ok: false, errors };
  return { ok: true, request: request as Extract<LimitsCheck, { ok: true }>["request"] };
}

function asNumber(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? Number.NaN : Number(trimmed);
}
