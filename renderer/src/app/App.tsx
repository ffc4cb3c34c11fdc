import { useEffect } from "react";
import { useShallow } from "zustand/react/shallow";
import { Text } from "../components/Text";
import { ActionsHost } from "../features/actions/ActionsHost";
import { AuditView } from "../features/audit/AuditView";
import { CommandPalette } from "../features/command-palette/CommandPalette";
import { JanitorView } from "../features/janitor/JanitorView";
import { LeaseDrawer } from "../features/lease-detail/LeaseDrawer";
import { LeasesView } from "../features/leases/LeasesView";
import { PicturesView } from "../features/pictures/PicturesView";
import { QuarantinesView } from "../features/quarantine/QuarantinesView";
import { SettingsView } from "../features/settings/SettingsView";
import { ShortcutsDialog } from "../features/shortcuts/ShortcutsDialog";
import { Sidebar } from "../features/sidebar/Sidebar";
import { ScanBanner } from "../features/status-bar/ScanBanner";
import { StatusBar } from "../features/status-bar/StatusBar";
import { UntrackedView } from "../features/untracked/UntrackedView";
import { type Scope, useUi, type View } from "../state/ui-store";
import { useInventory, useRefreshInventory } from "../state/use-inventory";
import { attentionCount, pageTitle } from "./page-title";
import { useAutoRefresh } from "./use-auto-refresh";
import { useGlobalKeys } from "./use-global-keys";
import { useMainEvents } from "./use-main-events";
import { useUrlState } from "./use-url-state";

const TITLES = {
  leases: "Leases",
  pictures: "Pictures",
  audit: "Audit log",
  settings: "Settings",
  untracked: "Untracked sandboxes",
  quarantines: "Quarantines",
  janitor: "Janitor",
};

function viewTitle(view: View, scope: Scope): string {
  if (view !== "leases") return TITLES[view];
  return scope.kind === "environment" ? scope.name || "(unnamed environment)" : "All environments";
}

/** The tab names the view and how many leases need attention, so a glance at the tab answers. */
function usePageTitle(): void {
  const view = useUi((state) => state.view);
  const scope = useUi((state) => state.scope);
  const inventory = useInventory();
  const scoped = view === "leases" && scope.kind === "environment" ? scope : null;
  const attention = inventory.data ? attentionCount(inventory.data.view, scoped?.key ?? null) : null;
  const name = scoped ? viewTitle(view, scoped) : null;
  const title = pageTitle(name ? `Leases in ${name}` : TITLES[view], attention);
  useEffect(() => {
    document.title = title;
  }, [title]);
}

function TopBar() {
  const { view, scope, setPaletteOpen, setShortcutsOpen, theme, setTheme } = useUi(
    useShallow((state) => ({
      view: state.view,
      scope: state.scope,
      setPaletteOpen: state.setPaletteOpen,
      setShortcutsOpen: state.setShortcutsOpen,
      theme: state.theme,
      setTheme: state.setTheme,
    })),
  );
  const inventory = useInventory();
  const refresh = useRefreshInventory();
  const title = viewTitle(view, scope);
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
        data-testid="open-shortcuts"
        aria-label="Keyboard shortcuts"
        title="Keyboard shortcuts (?)"
        onClick={() => setShortcutsOpen(true)}
      >
        ?
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
    case "quarantines":
      return <QuarantinesView />;
    case "janitor":
      return <JanitorView />;
  }
}

export function App() {
  useGlobalKeys();
  useMainEvents();
  useAutoRefresh();
  useUrlState();
  usePageTitle();
  return (
    <div className="app">
      <Sidebar />
      <main className="app-main">
        <TopBar />
        <ScanBanner />
        <CurrentView />
      </main>
      <StatusBar />
      <LeaseDrawer />
      <CommandPalette />
      <ShortcutsDialog />
      <ActionsHost />
    </div>
  );
}
