import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { POLICY_FILE_MESSAGE, type SettingsView } from "../../../../shared/contract";
import { api } from "../../api";
import { errorMessage } from "../../lib/errors";
import { queryKeys } from "../../state/query-keys";

/** The policy the Janitor view shows and runs: a path main reads, checked as a policy when it is saved. */
export function PolicyFileForm({ settings }: { settings: SettingsView }) {
  const client = useQueryClient();
  const saved = settings.policyFile ?? "";
  const [draft, setDraft] = useState(saved);
  useEffect(() => setDraft(saved), [saved]);
  const trimmed = draft.trim();
  const invalid = trimmed !== "" && !(trimmed.startsWith("/") || /^[A-Za-z]:[\\/]/.test(trimmed));
  const wrongKind = trimmed !== "" && !trimmed.endsWith(".json");
  const save = useMutation({
    mutationFn: () => api.invoke("settings:update", { policyFile: trimmed === "" ? null : trimmed }),
    onSuccess: (view) => {
      client.setQueryData(queryKeys.settings, view);
      void client.invalidateQueries({ queryKey: ["janitor"] });
    },
  });
  return (
    <section className="card" data-testid="policy-file-form">
      <h2>Janitor policy</h2>
      <p className="muted">
        The policy file the Janitor view shows and runs, the same file <code>leasekeeper watch --policy</code>{" "}
        reads. Leave it empty for none.
      </p>
      <label className="field">
        <span>Policy file (absolute path to a .json file)</span>
        <input
          className="input mono"
          data-testid="policy-file-input"
          value={draft}
          spellCheck={false}
          onChange={(event) => setDraft(event.target.value)}
          aria-invalid={invalid || wrongKind}
        />
      </label>
      {(invalid || wrongKind) && (
        <p className="field-error" role="alert">
          {POLICY_FILE_MESSAGE}
        </p>
      )}
      {save.isError && (
        <p className="field-error" role="alert" data-testid="policy-file-error">
          {errorMessage(save.error)}
        </p>
      )}
      {save.isSuccess && trimmed === saved && <p className="muted">Saved.</p>}
      <button
        type="button"
        className="btn"
        data-testid="policy-file-save"
        disabled={save.isPending || invalid || wrongKind || trimmed === saved}
        onClick={() => save.mutate()}
      >
        {save.isPending ? "Checking…" : "Save policy file"}
      </button>
    </section>
  );
}
