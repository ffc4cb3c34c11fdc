import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import {
  PRICE_BOUNDS,
  RATE_LIMIT_BOUNDS,
  REFRESH_INTERVAL_BOUNDS,
  type SettingsView,
  TYPED_COUNT_BOUNDS,
} from "../../../../shared/contract";
import { api } from "../../api";
import { errorMessage } from "../../lib/errors";
import { queryKeys } from "../../state/query-keys";
import { checkLimits } from "./limits-draft";

/**
 * The request budget per CreateOS origin, how often the inventory refreshes on its own, how large a
 * destroy may be before its count must be typed back, and what CreateOS charges (for the first screen's
 * estimate of what flagged sandboxes cost).
 */
export function LimitsForm({ settings }: { settings: SettingsView }) {
  const client = useQueryClient();
  const [rate, setRate] = useState(String(settings.rateLimitPerMinute));
  const [interval, setIntervalText] = useState(String(settings.refreshIntervalSeconds));
  const [typedCount, setTypedCount] = useState(String(settings.typedCountAbove));
  const [vcpuPrice, setVcpuPrice] = useState(priceText(settings.pricePerVcpuHour));
  const [gibPrice, setGibPrice] = useState(priceText(settings.pricePerGibHour));
  useEffect(() => {
    const saved = savedFields(settings);
    setRate(saved.rate);
    setIntervalText(saved.interval);
    setTypedCount(saved.typedCount);
    setVcpuPrice(saved.vcpuPrice);
    setGibPrice(saved.gibPrice);
  }, [settings]);
  const fields = { rate, interval, typedCount, vcpuPrice, gibPrice };
  const check = checkLimits(fields);
  // "Saved." speaks of the fields as saved: an edit since makes it untrue until it is saved or undone.
  const asSaved = sameFields(fields, savedFields(settings));
  const errors = check.ok ? {} : check.errors;
  const save = useMutation({
    mutationFn: () => {
      if (!check.ok) throw new Error("The limits are not valid yet.");
      return api.invoke("settings:update", check.request);
    },
    onSuccess: (next) => client.setQueryData(queryKeys.settings, next),
  });

  return (
    <section className="card" data-testid="settings-limits">
      <h2>Pacing, refresh, bulk safety and prices</h2>
      <form
        className="form-grid"
        onSubmit={(event) => {
          event.preventDefault();
          if (check.ok) save.mutate();
        }}
      >
        <WholeNumberField
          id="rate-limit"
          label="Rate budget per origin (requests per minute)"
          bounds={RATE_LIMIT_BOUNDS}
          value={rate}
          error={errors.rateLimitPerMinute}
          hint="CreateOS allows about 300 per minute per IP, shared with Paperclip."
          onChange={setRate}
        />
        <WholeNumberField
          id="refresh-interval"
          label="Refresh interval (seconds)"
          bounds={REFRESH_INTERVAL_BOUNDS}
          value={interval}
          error={errors.refreshIntervalSeconds}
          hint="Automatic refresh pauses while the window is hidden."
          onChange={setIntervalText}
        />
        <WholeNumberField
          id="typed-count-above"
          label="Type the count back for destroys of more than (sandboxes)"
          bounds={TYPED_COUNT_BOUNDS}
          value={typedCount}
          error={errors.typedCountAbove}
          hint="Destroying any ok sandbox always needs the count typed back, whatever this says."
          onChange={setTypedCount}
        />
        <PriceField
          id="price-vcpu-hour"
          label="Price per vCPU-hour, USD (optional)"
          value={vcpuPrice}
          error={errors.pricePerVcpuHour}
          onChange={setVcpuPrice}
        />
        <PriceField
          id="price-gib-hour"
          label="Price per GiB-hour of memory, USD (optional)"
          value={gibPrice}
          error={errors.pricePerGibHour}
          onChange={setGibPrice}
        />
        <div className="row-flex">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={!check.ok || save.isPending}
            data-testid="limits-save"
          >
            Save
          </button>
          {save.isError && <span className="field-error">{errorMessage(save.error)}</span>}
          {save.isSuccess && asSaved && (
            <span className="muted" data-testid="limits-saved">
              Saved.
            </span>
          )}
        </div>
      </form>
    </section>
  );
}

interface WholeNumberFieldProps {
  /** Also the test id; its error is `<id>-error`. */
  id: string;
  label: string;
  bounds: { min: number; max: number };
  value: string;
  error: string | undefined;
  hint: string;
  onChange: (text: string) => void;
}

/** A number input whose error, when there is one, takes the hint's place and is tied to the input. */
function WholeNumberField({ id, label, bounds, value, error, hint, onChange }: WholeNumberFieldProps) {
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="input"
        type="number"
        min={bounds.min}
        max={bounds.max}
        step={1}
        value={value}
        aria-invalid={Boolean(error)}
        aria-describedby={error ? errorId : undefined}
        data-testid={id}
        onChange={(event) => onChange(event.target.value)}
      />
      {error ? (
        <span className="field-error" id={errorId} data-testid={errorId}>
          {error}
        </span>
      ) : (
        <span className="field-hint">{hint}</span>
      )}
    </div>
  );
}

type LimitFields = Record<"rate" | "interval" | "typedCount" | "vcpuPrice" | "gibPrice", string>;

/** The fields as the saved settings fill them. */
function savedFields(settings: SettingsView): LimitFields {
  return {
    rate: String(settings.rateLimitPerMinute),
    interval: String(settings.refreshIntervalSeconds),
    typedCount: String(settings.typedCountAbove),
    vcpuPrice: priceText(settings.pricePerVcpuHour),
    gibPrice: priceText(settings.pricePerGibHour),
  };
}

function sameFields(a: LimitFields, b: LimitFields): boolean {
  return (Object.keys(a) as Array<keyof LimitFields>).every((field) => a[field] === b[field]);
}

function priceText(price: number | null): string {
  return price === null ? "" : String(price);
}

/** A price per hour: a plain decimal, or empty for none (the first screen then shows no money estimate). */
function PriceField(props: {
  id: string;
  label: string;
  value: string;
  error: string | undefined;
  onChange: (text: string) => void;
}) {
  const errorId = `${props.id}-error`;
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        className="input"
        inputMode="decimal"
        placeholder="not set"
        value={props.value}
        aria-invalid={Boolean(props.error)}
        aria-describedby={props.error ? errorId : undefined}
        data-testid={props.id}
        onChange={(event) => props.onChange(event.target.value)}
      />
      {props.error ? (
        <span className="field-error" id={errorId} data-testid={errorId}>
          {props.error}
        </span>
      ) : (
        <span className="field-hint">
          What CreateOS charges, from {PRICE_BOUNDS.min} to {PRICE_BOUNDS.max.toLocaleString("en-US")}; with
          both set, the first screen estimates what flagged sandboxes cost.
        </span>
      )}
    </div>
  );
}
