import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { CredentialSetSchema, type CredentialView, type SettingsView } from "../../../../shared/contract";
import { api } from "../../api";
import { queryKeys } from "../../app/query-keys";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { fieldErrors } from "./field-errors";

/**
 * CreateOS credentials: keys are written, tested and cleared, never read back. The key field is
 * uncontrolled (its value never enters React state or the DOM's attributes) and is emptied as soon as
 * the key is sent.
 */
export function CredentialsForm({ settings }: { settings: SettingsView }) {
  const client = useQueryClient();
  const keyInput = useRef<HTMLInputElement>(null);
  const [name, setName] = useState("");
  const [origin, setOrigin] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const vault = settings.vault;

  const acceptWeak = useMutation({
    mutationFn: () => api.invoke("vault:accept-weak-store", { accept: true }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.settings }),
  });

  const submit = async () => {
    const input = keyInput.current;
    const check = CredentialSetSchema.safeParse({ name, origin, apiKey: input?.value ?? "" });
    if (!check.success) {
      setErrors(fieldErrors(check.error));
      return;
    }
    setErrors({});
    setSaving(true);
    setResult(null);
    try {
      // The key goes straight from the field to main; nothing here keeps it.
      await api.invoke("credentials:set", { name, origin, apiKey: input!.value });
      input!.value = "";
      setResult(`Saved the key for ${name}.`);
      await client.invalidateQueries({ queryKey: queryKeys.settings });
      void client.invalidateQueries({ queryKey: queryKeys.inventory });
    } catch (error) {
      setResult(errorMessage(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="card" data-testid="settings-credentials">
      <h2>Credentials</h2>
      <p className="muted" data-testid="vault-message">
        {vault.message}
      </p>
      {!vault.persistAllowed && vault.encryption === "weak-file" && !vault.weakStoreAccepted && (
        <button type="button" className="btn btn-small" onClick={() => acceptWeak.mutate()}>
          Store keys with obfuscation only
        </button>
      )}
      <table className="data-table" data-testid="credentials-table">
        <colgroup>
          <col style={{ width: "20%" }} />
          <col style={{ width: "32%" }} />
          <col style={{ width: "22%" }} />
          <col style={{ width: "26%" }} />
        </colgroup>
        <thead>
          <tr>
            <th>Name</th>
            <th>Origin</th>
            <th>Key</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {settings.credentials.map((credential) => (
            <CredentialRow key={`${credential.name} ${credential.origin}`} credential={credential} />
          ))}
          {settings.credentials.length === 0 && (
            <tr>
              <td colSpan={4} className="muted">
                No credentials yet. Add the CreateOS API key of each account below.
              </td>
            </tr>
          )}
        </tbody>
      </table>

      <form
        className="credential-form"
        data-testid="credential-form"
        autoComplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <h3>Set a key</h3>
        <div className="form-grid">
          <div className="field">
            <label htmlFor="credential-name">Name</label>
            <input
              id="credential-name"
              className="input mono"
              value={name}
              placeholder="primary"
              aria-invalid={Boolean(errors.name)}
              data-testid="credential-name"
              onChange={(event) => setName(event.target.value)}
            />
            {errors.name && <span className="field-error">Name {errors.name}</span>}
          </div>
          <div className="field">
            <label htmlFor="credential-origin">API URL</label>
            <input
              id="credential-origin"
              className="input mono"
              value={origin}
              placeholder="https://api.createos.example"
              aria-invalid={Boolean(errors.origin)}
              data-testid="credential-origin"
              onChange={(event) => setOrigin(event.target.value)}
            />
            {errors.origin && <span className="field-error">{errors.origin}</span>}
          </div>
          <div className="field">
            <label htmlFor="credential-key">API key</label>
            <input
              id="credential-key"
              ref={keyInput}
              className="input mono"
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              aria-invalid={Boolean(errors.apiKey)}
              data-testid="credential-key"
              placeholder="write-only"
            />
            {errors.apiKey ? (
              <span className="field-error">API key {errors.apiKey}</span>
            ) : (
              <span className="field-hint">Write-only: Leasekeeper shows only its last four characters.</span>
            )}
          </div>
        </div>
        <div className="row-flex">
          <button type="submit" className="btn btn-primary" disabled={saving} data-testid="credential-save">
            {saving ? "Saving…" : "Save key"}
          </button>
          {result && (
            <span className="muted" data-testid="credential-result">
              {result}
            </span>
          )}
        </div>
      </form>
    </section>
  );
}

function CredentialRow({ credential }: { credential: CredentialView }) {
  const client = useQueryClient();
  const test = useMutation({ mutationFn: () => api.invoke("credentials:test", { name: credential.name }) });
  const clear = useMutation({
    mutationFn: () => api.invoke("credentials:clear", { name: credential.name }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.settings }),
  });
  return (
    <tr data-testid="credential-row" data-name={credential.name} data-state={credential.state}>
      <td>
        <Text value={credential.name} mono />
      </td>
      <td>
        <Text value={credential.origin} mono />
      </td>
      <td data-testid="credential-state">
        {credential.state === "set" ? (
          <>
            set, ends in …<span className="mono">{credential.last4}</span>
            {credential.storedIn && <span className="muted"> ({credential.storedIn})</span>}
          </>
        ) : (
          <span className="field-error">missing</span>
        )}
        {test.data && (
          <div className={test.data.ok ? "match-yes" : "field-error"} data-testid="credential-test-result">
            {test.data.message}
            {test.data.httpStatus ? ` (HTTP ${test.data.httpStatus})` : ""}
          </div>
        )}
        {test.isError && <div className="field-error">{errorMessage(test.error)}</div>}
      </td>
      <td>
        <div className="row-flex">
          <button
            type="button"
            className="btn btn-small"
            data-testid="credential-test"
            disabled={test.isPending || credential.state !== "set"}
            onClick={() => test.mutate()}
          >
            {test.isPending ? "Testing…" : "Test connection"}
          </button>
          {credential.storedIn === "vault" && (
            <button type="button" className="btn btn-small btn-ghost" onClick={() => clear.mutate()}>
              Clear
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}
