import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import {
  RATE_LIMIT_BOUNDS,
  REFRESH_INTERVAL_BOUNDS,
  type SettingsView,
  TYPED_COUNT_BOUNDS,
} from "../../../../shared/contract";
import { api } from "../../api";
import { queryKeys } from "../../app/query-keys";
import { errorMessage } from "../../lib/errors";
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
        <div className="field">
          <label htmlFor="rate-limit">Rate budget per origin (requests per minute)</label>
          <input
            id="rate-limit"
            className="input"
            type="number"
            min={RATE_LIMIT_BOUNDS.min}
            max={RATE_LIMIT_BOUNDS.max}
            step={1}
            value={rate}
            aria-invalid={Boolean(errors.rateLimitPerMinute)}
            aria-describedby={errors.rateLimitPerMinute ? "rate-limit-error" : undefined}
            data-testid="rate-limit"
            onChange={(event) => setRate(event.target.value)}
          />
          {errors.rateLimitPerMinute ? (
            <span className="field-error" id="rate-limit-error" data-testid="rate-limit-error">
              {errors.rateLimitPerMinute}
            </span>
          ) : (
            <span className="field-hint">
              CreateOS allows about 300 per minute per IP, shared with Paperclip.
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="refresh-interval">Refresh interval (seconds)</label>
          <input
            id="refresh-interval"
            className="input"
            type="number"
            min={REFRESH_INTERVAL_BOUNDS.min}
            max={REFRESH_INTERVAL_BOUNDS.max}
            step={1}
            value={interval}
            aria-invalid={Boolean(errors.refreshIntervalSeconds)}
            aria-describedby={errors.refreshIntervalSeconds ? "refresh-interval-error" : undefined}
            data-testid="refresh-interval"
            onChange={(event) => setIntervalText(event.target.value)}
          />
          {errors.refreshIntervalSeconds ? (
            <span className="field-error" id="refresh-interval-error" data-testid="refresh-interval-error">
              {errors.refreshIntervalSeconds}
            </span>
          ) : (
            <span className="field-hint">Automatic refresh pauses while the window is hidden.</span>
          )}
        </div>
        <div className="field">
          <label htmlFor="typed-count-above">Type the count back for destroys of more than (sandboxes)</label>
          <input
            id="typed-count-above"
            className="input"
            type="number"
            min={TYPED_COUNT_BOUNDS.min}
            max={TYPED_COUNT_BOUNDS.max}
            step={1}
            value={typedCount}
            aria-invalid={Boolean(errors.typedCountAbove)}
            aria-describedby={errors.typedCountAbove ? "typed-count-above-error" : undefined}
            data-testid="typed-count-above"
            onChange={(event) => setTypedCount(event.target.value)}
          />
          {errors.typedCountAbove ? (
            <span className="field-error" id="typed-count-above-error" data-testid="typed-count-above-error">
              {errors.typedCountAbove}
            </span>
          ) : (
            <span className="field-hint">
              Destroying any ok sandbox always needs the count typed back, whatever this says.
            </span>
          )}
        </div>
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
