import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { type SettingsView, SourceConfigSchema } from "../../../../shared/contract";
import { api } from "../../api";
import { queryKeys } from "../../app/query-keys";
import { errorMessage } from "../../lib/errors";
import { fieldErrors } from "./field-errors";

type Draft = { kind: "ledger"; path: string } | { kind: "paperclip"; url: string; tokenEnv: string };

function drafts(settings: SettingsView): Draft[] {
  return settings.sources.map((source) =>
    source.kind === "ledger"
      ? { kind: "ledger", path: source.path }
      : { kind: "paperclip", url: source.url, tokenEnv: source.tokenEnv ?? "" },
  );
}

function toConfig(draft: Draft) {
  return draft.kind === "ledger"
    ? { kind: "ledger" as const, path: draft.path }
    : { kind: "paperclip" as const, url: draft.url, ...(draft.tokenEnv ? { tokenEnv: draft.tokenEnv } : {}) };
}

/** Where lease rows come from: ledger files and Paperclip instances (token named by an environment variable). */
export function SourcesForm({ settings }: { settings: SettingsView }) {
  const client = useQueryClient();
  const [list, setList] = useState<Draft[]>(() => drafts(settings));
  useEffect(() => setList(drafts(settings)), [settings]);
  const checks = list.map((draft) => SourceConfigSchema.safeParse(toConfig(draft)));
  const errors = checks.map((check) => (check.success ? {} : fieldErrors(check.error)));
  const valid = list.length > 0 && checks.every((check) => check.success);
  const save = useMutation({
    mutationFn: () => api.invoke("settings:update", { sources: list.map(toConfig) }),
    onSuccess: (next) => {
      client.setQueryData(queryKeys.settings, next);
      void client.invalidateQueries({ queryKey: queryKeys.inventory });
    },
  });
  const update = (at: number, patch: Partial<Draft>) =>
    setList((current) =>
      current.map((draft, index) => (index === at ? ({ ...draft, ...patch } as Draft) : draft)),
    );

  return (
    <section className="card" data-testid="settings-sources">
      <h2>Sources</h2>
      <p className="muted">
        Where lease rows come from. Paperclip is only read; tokens are named by an environment variable.
      </p>
      {list.map((draft, at) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: drafts have no identity until saved
        <div key={at} className="source-row">
          <select
            className="input"
            aria-label="Source kind"
            value={draft.kind}
            onChange={(event) =>
              setList((current) =>
                current.map((item, index) =>
                  index === at
                    ? event.target.value === "ledger"
                      ? { kind: "ledger", path: "" }
                      : { kind: "paperclip", url: "", tokenEnv: "" }
                    : item,
                ),
              )
            }
          >
            <option value="ledger">Ledger file</option>
            <option value="paperclip">Paperclip</option>
          </select>
          {draft.kind === "ledger" ? (
            <div className="field grow">
              <input
                className="input mono"
                aria-label="Ledger file path"
                placeholder="/path/to/ledger.json"
                value={draft.path}
                aria-invalid={Boolean(errors[at]?.path)}
                onChange={(event) => update(at, { path: event.target.value })}
              />
              {errors[at]?.path && <span className="field-error">Path {errors[at].path}</span>}
            </div>
          ) : (
            <>
              <div className="field grow">
                <input
                  className="input mono"
                  aria-label="Paperclip URL"
                  placeholder="https://paperclip.example"
                  value={draft.url}
                  aria-invalid={Boolean(errors[at]?.url)}
                  onChange={(event) => update(at, { url: event.target.value })}
                />
                {errors[at]?.url && <span className="field-error">URL {errors[at].url}</span>}
              </div>
              <div className="field">
                <input
                  className="input mono"
                  aria-label="Token environment variable"
                  placeholder="PAPERCLIP_TOKEN"
                  value={draft.tokenEnv}
                  aria-invalid={Boolean(errors[at]?.tokenEnv)}
                  onChange={(event) => update(at, { tokenEnv: event.target.value })}
                />
                {errors[at]?.tokenEnv && (
                  <span className="field-error">Token variable {errors[at].tokenEnv}</span>
                )}
              </div>
            </>
          )}
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-label="Remove source"
            onClick={() => setList((current) => current.filter((_, index) => index !== at))}
          >
            Remove
          </button>
        </div>
      ))}
      {list.length === 0 && <p className="field-error">Add at least one source.</p>}
      <div className="row-flex">
        <button
          type="button"
          className="btn btn-small"
          onClick={() => setList((current) => [...current, { kind: "ledger", path: "" }])}
        >
          Add source
        </button>
        <span style={{ flex: 1 }} />
        {save.isError && <span className="field-error">{errorMessage(save.error)}</span>}
        {save.isSuccess && <span className="muted">Saved.</span>}
        <button
          type="button"
          className="btn btn-primary"
          disabled={!valid || save.isPending}
          onClick={() => save.mutate()}
        >
          Save sources
        </button>
      </div>
    </section>
  );
}
