import { useShallow } from "zustand/react/shallow";
import { Text } from "../components/Text";
import { ActionsHost } from "../features/actions/ActionsHost";
import { AuditView } from "../features/audit/AuditView";
import { CommandPalette } from "../features/command-palette/CommandPalette";
import { LeaseDrawer } from "../features/lease-detail/LeaseDrawer";
import { LeasesView } from "../features/leases/LeasesView";
import { PicturesView } from "../features/pictures/PicturesView";
import { SettingsView } from "../features/settings/SettingsView";
import { Sidebar } from "../features/sidebar/Sidebar";
import { StatusBar } from "../features/status-bar/StatusBar";
import { UntrackedView } from "../features/untracked/UntrackedView";
import { useUi } from "./ui-store";
import { useAutoRefresh } from "./use-auto-refresh";
import { useGlobalKeys } from "./use-global-keys";
import { useInventory, useRefreshInventory } from "./use-inventory";
import { useMainEvents } from "./use-main-events";

const TITLES = {
  leases: "Leases",
  pictures: "Pictures",
  audit: "Audit log",
  settings: "Settings",
  untracked: "Untracked sandboxes",
};

function TopBar() {
  const { view, scope, setPaletteOpen, theme, setTheme } = useUi(
    useShallow((state) => ({
      view: state.view,
      scope: state.scope,
      setPaletteOpen: state.setPaletteOpen,
      theme: state.theme,
      setTheme: state.setTheme,
    })),
  );
  const inventory = useInventory();
  const refresh = useRefreshInventory();
  const title =
    view === "leases"
      ? scope.kind === "environment"
        ? scope.name || "(unnamed environment)"
        : "All environments"
      : TITLES[view];
  const dark =
    theme === "dark" || (theme === "system" && window.matchMedia?.("(prefers-color-scheme: dark)").matches);
  return (
    <header className="topbar">
      <h1 data-testid="view-title">
        <Text value={title} />
      </h1>
      <span className="spacer" />
      <button
        type="button"
        className="btn btn-small"
        data-testid="refresh"
        disabled={inventory.isFetching}
        onClick={() => void refresh()}
        title="Refresh the inventory now (R)"
      >
        {inventory.isFetching ? "Refreshing…" : "Refresh"}
      </button>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => setPaletteOpen(true)}
        title="Command palette"
      >
        Commands <kbd>Ctrl K</kbd>
      </button>
      <button
        type="button"
        className="btn btn-small btn-ghost"
        aria-label={dark ? "Use the light theme" : "Use the dark theme"}
        onClick={() => setTheme(dark ? "light" : "dark")}
      >
        {dark ? "☀" : "☾"}
      </button>
    </header>
  );
}

function CurrentView() {
  const view = useUi((state) => state.view);
  switch (view) {
    case "leases":
      return <LeasesView />;
    case "untracked":
      return <UntrackedView />;
    case "pictures":
      return <PicturesView />;
    case "audit":
      return <AuditView />;
    case "settings":
      return <SettingsView />;
  }
}

export function App() {
  useGlobalKeys();
  useMainEvents();
  useAutoRefresh();
  return (
    <div className="app">
      <Sidebar />
      <main className="app-main">
        <TopBar />
        <CurrentView />
      </main>
      <StatusBar />
      <LeaseDrawer />
      <CommandPalette />
      <ActionsHost />
    </div>
  );
}
