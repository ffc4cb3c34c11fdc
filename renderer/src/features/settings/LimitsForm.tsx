import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { SettingsUpdateSchema, type SettingsView } from "../../../../shared/contract";
import { api } from "../../api";
import { queryKeys } from "../../app/query-keys";
import { errorMessage } from "../../lib/errors";
import { fieldErrors } from "./field-errors";

/** The request budget per CreateOS origin and how often the inventory refreshes on its own. */
export function LimitsForm({ settings }: { settings: SettingsView }) {
  const client = useQueryClient();
  const [rate, setRate] = useState(String(settings.rateLimitPerMinute));
  const [interval, setIntervalText] = useState(String(settings.refreshIntervalSeconds));
  useEffect(() => {
    setRate(String(settings.rateLimitPerMinute));
    setIntervalText(String(settings.refreshIntervalSeconds));
  }, [settings]);
  const request = { rateLimitPerMinute: Number(rate), refreshIntervalSeconds: Number(interval) };
  const check = SettingsUpdateSchema.safeParse(request);
  const errors = check.success ? {} : fieldErrors(check.error);
  if (rate.trim() === "" || !Number.isInteger(Number(rate)))
    errors.rateLimitPerMinute = "must be a whole number";
  if (interval.trim() === "" || !Number.isInteger(Number(interval)))
    errors.refreshIntervalSeconds = "must be a whole number";
  const valid = Object.keys(errors).length === 0;
  const save = useMutation({
    mutationFn: () => api.invoke("settings:update", request),
    onSuccess: (next) => client.setQueryData(queryKeys.settings, next),
  });

  return (
    <section className="card" data-testid="settings-limits">
      <h2>Pacing and refresh</h2>
      <form
        className="form-grid"
        onSubmit={(event) => {
          event.preventDefault();
          if (valid) save.mutate();
        }}
      >
        <div className="field">
          <label htmlFor="rate-limit">Rate budget per origin (requests per minute)</label>
          <input
            id="rate-limit"
            className="input"
            inputMode="numeric"
            value={rate}
            aria-invalid={Boolean(errors.rateLimitPerMinute)}
            data-testid="rate-limit"
            onChange={(event) => setRate(event.target.value)}
          />
          {errors.rateLimitPerMinute ? (
            <span className="field-error">Budget {errors.rateLimitPerMinute}</span>
          ) : (
            <span className="field-hint">
              CreateOS allows about 300 per minute per IP, shared with Paperclip.
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="refresh-interval">Refresh interval (seconds, 0 = off)</label>
          <input
            id="refresh-interval"
            className="input"
            inputMode="numeric"
            value={interval}
            aria-invalid={Boolean(errors.refreshIntervalSeconds)}
            data-testid="refresh-interval"
            onChange={(event) => setIntervalText(event.target.value)}
          />
          {errors.refreshIntervalSeconds ? (
            <span className="field-error">Interval {errors.refreshIntervalSeconds}</span>
          ) : (
            <span className="field-hint">Automatic refresh pauses while the window is hidden.</span>
          )}
        </div>
        <div className="row-flex">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={!valid || save.isPending}
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
