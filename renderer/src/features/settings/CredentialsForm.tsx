import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { CredentialSetSchema, type CredentialView, type SettingsView } from "../../../../shared/contract";
import { api } from "../../api";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { queryKeys } from "../../state/query-keys";
import { fieldErrors } from "./field-errors";

type SaveOutcome = { kind: "saved" | "saved-unverified" | "refused" | "error"; message: string };

/**
 * CreateOS credentials: keys are written, tested and cleared, never read back. The key field is
 * uncontrolled (its value never enters React state or the DOM's attributes) and is emptied as soon as
 * the key is saved. A key is tested against its API URL first; one that fails is saved only when the
 * operator chooses "Save anyway", and is then shown as not verified.
 */
export function CredentialsForm({ settings }: { settings: SettingsView }) {
  const client = useQueryClient();
  const keyInput = useRef<HTMLInputElement>(null);
  const [name, setName] = useState("");
  const [origin, setOrigin] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  // Keys saved here per credential name: a row's test result belongs to the key it tested, and a new
  // key can end in the same four characters as the old one.
  const [keysSaved, setKeysSaved] = useState<Record<string, number>>({});
  const vault = settings.vault;

  const acceptWeak = useMutation({
    mutationFn: () => api.invoke("vault:accept-weak-store", { accept: true }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.settings }),
  });

  const submit = async (saveUnverified: boolean) => {
    const input = keyInput.current;
    const check = CredentialSetSchema.safeParse({ name, origin, apiKey: input?.value ?? "" });
    if (!check.success) {
      setErrors(fieldErrors(check.error));
      return;
    }
    setErrors({});
    setSaving(true);
    setOutcome(null);
    try {
      // The key goes straight from the field to main; nothing here keeps it.
      const answer = await api.invoke("credentials:set", {
        name,
        origin,
        apiKey: input!.value,
        ...(saveUnverified ? { saveUnverified: true } : {}),
      });
      if (!answer.saved) {
        // Kept in the field (not in state) so "Save anyway" can send the same key.
        setOutcome({ kind: "refused", message: answer.test.message });
        return;
      }
      input!.value = "";
      setKeysSaved((current) => ({ ...current, [name]: (current[name] ?? 0) + 1 }));
      setOutcome(
        answer.test.ok
          ? { kind: "saved", message: `Tested and saved the key for ${name}.` }
          : { kind: "saved-unverified", message: `Saved the key for ${name}, not verified.` },
      );
      await client.invalidateQueries({ queryKey: queryKeys.settings });
      void client.invalidateQueries({ queryKey: queryKeys.inventory });
    } catch (error) {
      setOutcome({ kind: "error", message: errorMessage(error) });
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
            <CredentialRow
              key={keyIdentity(credential, keysSaved[credential.name] ?? 0)}
              credential={credential}
            />
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
          void submit(false);
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
            {saving ? "Testing…" : "Test and save key"}
          </button>
          {outcome?.kind === "refused" && (
            <button
              type="button"
              className="btn btn-danger-outline"
              disabled={saving}
              data-testid="credential-save-anyway"
              onClick={() => void submit(true)}
            >
              Save anyway, not verified
            </button>
          )}
        </div>
        {outcome && (
          <p
            className={
              outcome.kind === "saved" ? "credential-outcome match-yes" : "credential-outcome field-error"
            }
            role={outcome.kind === "saved" ? "status" : "alert"}
            data-testid="credential-result"
            data-outcome={outcome.kind}
          >
            {outcome.kind === "refused" ? `Not saved. ${outcome.message}` : outcome.message}
          </p>
        )}
      </form>
    </section>
  );
}

/**
 * What a row's state is about: the credential and the key it holds now. A change of either mounts the row
 * afresh, so a test result or a failed clear is never shown beside a key it was not about.
 */
function keyIdentity(credential: CredentialView, keysSaved: number): string {
  return [
    credential.name,
    credential.origin,
    credential.state,
    credential.storedIn,
    credential.last4,
    keysSaved,
  ].join(" ");
}

function CredentialRow({ credential }: { credential: CredentialView }) {
  const client = useQueryClient();
  const test = useMutation({
    mutationFn: () => api.invoke("credentials:test", { name: credential.name }),
    // A passing test clears the credential's "not verified" mark in main.
    onSuccess: (answer) => {
      if (answer.ok && credential.notVerified)
        void client.invalidateQueries({ queryKey: queryKeys.settings });
    },
  });
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
            {credential.notVerified && (
              <span
                className="badge badge-plain tone-stale credential-mark"
                data-testid="credential-not-verified"
                title="This key failed its test when it was saved. Test it again once it should work."
              >
                not verified
              </span>
            )}
          </>
        ) : (
          <span className="field-error">missing</span>
        )}
        {test.data && (
          <div
            className={`credential-outcome ${test.data.ok ? "match-yes" : "field-error"}`}
            data-testid="credential-test-result"
          >
            {test.data.message}
          </div>
        )}
        {test.isError && <div className="credential-outcome field-error">{errorMessage(test.error)}</div>}
        {clear.isError && (
          <div className="credential-outcome field-error" role="alert" data-testid="credential-clear-error">
            Not cleared. {errorMessage(clear.error)}
          </div>
        )}
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
            <button
              type="button"
              className="btn btn-small btn-ghost"
              data-testid="credential-clear"
              disabled={clear.isPending}
              onClick={() => clear.mutate()}
            >
              Clear
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}
