import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import {
  type ScanStatus,
  type SettingsView,
  type SourceConfig,
  SourceConfigSchema,
} from "../../../../shared/contract";
import { api } from "../../api";
import { errorMessage } from "../../lib/errors";
import { queryKeys } from "../../state/query-keys";
import { useStatus } from "../status-bar/use-status";
import { fieldErrors } from "./field-errors";

type Draft = { kind: "ledger"; path: string } | { kind: "paperclip"; url: string; tokenEnv: string };

function drafts(settings: SettingsView): Draft[] {
  return settings.sources.map((source) =>
    source.kind === "ledger"
      ? { kind: "ledger", path: source.path }
      : { kind: "paperclip", url: source.url, tokenEnv: source.tokenEnv ?? "" },
  );
}

/** The saved source a draft is, by what it reads (its id is the one the scan reports under). */
function savedAs(settings: SettingsView, draft: Draft) {
  return settings.sources.find((source) =>
    source.kind === "ledger"
      ? draft.kind === "ledger" && draft.path === source.path
      : draft.kind === "paperclip" && draft.url === source.url && draft.tokenEnv === (source.tokenEnv ?? ""),
  );
}

type Outcome =
  | { kind: "saved" | "saved-untested"; message: string }
  | { kind: "refused"; message: string }
  | { kind: "error"; message: string };

function toConfig(draft: Draft): SourceConfig {
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
  const scan = useStatus().data?.scan ?? null;
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // A source is read once before it is saved, as a key is tested; one already saved is not read again.
  const save = useMutation({
    mutationFn: async (anyway: boolean) => {
      const fresh = list.filter((draft) => savedAs(settings, draft) === undefined);
      const tests = await Promise.all(
        fresh.map((draft) => api.invoke("sources:test", { source: toConfig(draft) })),
      );
      const failed = tests.filter((test) => !test.ok);
      const said = tests.map((test) => test.message).join(" ");
      if (failed.length > 0 && !anyway)
        return { kind: "refused", message: failed.map((t) => t.message).join(" ") } as const;
      const next = await api.invoke("settings:update", { sources: list.map(toConfig) });
      client.setQueryData(queryKeys.settings, next);
      void client.invalidateQueries({ queryKey: queryKeys.inventory });
      return failed.length > 0
        ? ({
            kind: "saved-untested",
            message: `Saved without a working read. ${failed.map((t) => t.message).join(" ")} Every scan will say so until it can be read.`,
          } as const)
        : ({ kind: "saved", message: said ? `Saved. ${said}` : "Saved." } as const);
    },
    onMutate: () => setOutcome(null),
    onSuccess: (result) => setOutcome(result),
    onError: (error) => setOutcome({ kind: "error", message: errorMessage(error) }),
  });
  // What the last save said (saved, or refused with "Save anyway") is about the list it was given: an
  // edit since takes it away, so it is never said of a list it did not save or test.
  const edit = (change: (current: Draft[]) => Draft[]) => {
    setOutcome(null);
    setList(change);
  };
  const update = (at: number, patch: Partial<Draft>) =>
    edit((current) =>
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
              edit((current) =>
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
          <SourceFailure settings={settings} draft={draft} scan={scan} />
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-label="Remove source"
            onClick={() => edit((current) => current.filter((_, index) => index !== at))}
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
          data-testid="source-add"
          onClick={() => edit((current) => [...current, { kind: "ledger", path: "" }])}
        >
          Add source
        </button>
        <span style={{ flex: 1 }} />
        {outcome?.kind === "refused" && (
          <button
            type="button"
            className="btn btn-danger-outline"
            disabled={save.isPending}
            data-testid="sources-save-anyway"
            onClick={() => save.mutate(true)}
          >
            Save anyway
          </button>
        )}
        <button
          type="button"
          className="btn btn-primary"
          data-testid="sources-save"
          disabled={!valid || save.isPending}
          onClick={() => save.mutate(false)}
        >
          {save.isPending ? "Testing…" : "Test and save sources"}
        </button>
      </div>
      {outcome && (
        <p
          className={
            outcome.kind === "saved" ? "credential-outcome match-yes" : "credential-outcome field-error"
          }
          role={outcome.kind === "saved" ? "status" : "alert"}
          data-testid="sources-result"
          data-outcome={outcome.kind}
        >
          {outcome.kind === "refused" ? `Not saved. ${outcome.message}` : outcome.message}
        </p>
      )}
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

/** What the last scan said of a saved source that it could not read (completely). */
function SourceFailure({
  settings,
  draft,
  scan,
}: {
  settings: SettingsView;
  draft: Draft;
  scan: ScanStatus | null;
}) {
  const saved = savedAs(settings, draft);
  const read = saved && scan?.sources.find((source) => source.sourceId === saved.id);
  if (!read || read.outcome === "complete" || read.message === null) return null;
  return (
    <span className="field-error source-failed" data-testid="source-failed" data-state={read.outcome}>
      {read.message}
    </span>
  );
}
