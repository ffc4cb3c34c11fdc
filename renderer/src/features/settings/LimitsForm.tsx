import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import {
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
 * The request budget per CreateOS origin, how often the inventory refreshes on its own, and how large a
 * destroy may be before its count must be typed back.
 */
export function LimitsForm({ settings }: { settings: SettingsView }) {
  const client = useQueryClient();
  const [rate, setRate] = useState(String(settings.rateLimitPerMinute));
  const [interval, setIntervalText] = useState(String(settings.refreshIntervalSeconds));
  const [typedCount, setTypedCount] = useState(String(settings.typedCountAbove));
  useEffect(() => {
    setRate(String(settings.rateLimitPerMinute));
    setIntervalText(String(settings.refreshIntervalSeconds));
    setTypedCount(String(settings.typedCountAbove));
  }, [settings]);
  const check = checkLimits({ rate, interval, typedCount });
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
      <h2>Pacing, refresh and bulk safety</h2>
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
          {save.isSuccess && <span className="muted">Saved.</span>}
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
