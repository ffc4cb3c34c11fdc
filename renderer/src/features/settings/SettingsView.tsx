import { ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { type ThemeChoice, useUi } from "../../state/ui-store";
import { useAppInfo, useSettings } from "../../state/use-app-info";
import { CredentialsForm } from "./CredentialsForm";
import { LimitsForm } from "./LimitsForm";
import { PolicyFileForm } from "./PolicyFileForm";
import { SourcesForm } from "./SourcesForm";
import "./settings.css";

const THEMES: Array<[ThemeChoice, string]> = [
  ["system", "Follow the system"],
  ["light", "Light"],
  ["dark", "Dark"],
];

export function SettingsView() {
  const settings = useSettings();
  const info = useAppInfo();
  const theme = useUi((state) => state.theme);
  const setTheme = useUi((state) => state.setTheme);
  if (settings.isPending) return <SkeletonRows rows={10} />;
  if (settings.isError)
    return <ErrorState message={errorMessage(settings.error)} onRetry={() => void settings.refetch()} />;
  return (
    <div className="view-scroll settings" data-testid="settings-view">
      <SourcesForm settings={settings.data} />
      <CredentialsForm settings={settings.data} />
      <LimitsForm settings={settings.data} />
      <PolicyFileForm settings={settings.data} />
      <section className="card">
        <h2>Appearance</h2>
        <div className="row-flex" role="radiogroup" aria-label="Theme">
          {THEMES.map(([value, label]) => (
            <label key={value} className="row-flex" style={{ gap: 4 }}>
              <input type="radio" name="theme" checked={theme === value} onChange={() => setTheme(value)} />
              {label}
            </label>
          ))}
        </div>
      </section>
      <section className="card">
        <h2>About</h2>
        <dl className="kv">
          <dt>Config file</dt>
          <dd>
            <Text value={settings.data.configPath} mono placeholder="(none: demo or environment variables)" />
          </dd>
          <dt>Data directory</dt>
          <dd>
            <Text value={settings.data.dataDir} mono />
          </dd>
          <dt>Mode</dt>
          <dd>
            {info.data?.mode ?? "—"}
            {info.data?.demo ? " · demo" : ""}
          </dd>
        </dl>
      </section>
    </div>
  );
}
