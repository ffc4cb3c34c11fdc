import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { type SettingsView, SourceConfigSchema } from "../../../../shared/contract";
import { api } from "../../api";
import { errorMessage } from "../../lib/errors";
import { queryKeys } from "../../state/query-keys";
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
            <SourceField
              label="Ledger file path"
              errorLabel="Path"
              placeholder="/path/to/ledger.json"
              value={draft.path}
              error={errors[at]?.path}
              onChange={(path) => update(at, { path })}
            />
          ) : (
            <>
              <SourceField
                label="Paperclip URL"
                errorLabel="URL"
                placeholder="https://paperclip.example"
                value={draft.url}
                error={errors[at]?.url}
                onChange={(url) => update(at, { url })}
              />
              <SourceField
                label="Token environment variable"
                errorLabel="Token variable"
                placeholder="PAPERCLIP_TOKEN"
                value={draft.tokenEnv}
                error={errors[at]?.tokenEnv}
                onChange={(tokenEnv) => update(at, { tokenEnv })}
                narrow
              />
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

/** One text field of a source, with its validation message beside it. */
function SourceField(props: {
  label: string;
  errorLabel: string;
  placeholder: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
  narrow?: boolean;
}) {
  return (
    <div className={props.narrow ? "field" : "field grow"}>
      <input
        className="input mono"
        aria-label={props.label}
        placeholder={props.placeholder}
        value={props.value}
        aria-invalid={Boolean(props.error)}
        onChange={(event) => props.onChange(event.target.value)}
      />
      {props.error && (
        <span className="field-error">
          {props.errorLabel} {props.error}
        </span>
      )}
    </div>
  );
}
