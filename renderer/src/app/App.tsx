import { useEffect } from "react";
import { useShallow } from "zustand/react/shallow";
import { Text } from "../components/Text";
import { ActionsHost } from "../features/actions/ActionsHost";
import { CommandPalette } from "../features/command-palette/CommandPalette";
import { LeaseDrawer } from "../features/lease-detail/LeaseDrawer";
import { ShortcutsDialog } from "../features/shortcuts/ShortcutsDialog";
import { Sidebar } from "../features/sidebar/Sidebar";
import { ScanBanner } from "../features/status-bar/ScanBanner";
import { StatusBar } from "../features/status-bar/StatusBar";
import { useUi } from "../state/ui-store";
import { useInventory, useRefreshInventory } from "../state/use-inventory";
import { CurrentView } from "./CurrentView";
import { attentionCount, pageTitle } from "./page-title";
import { useAutoRefresh } from "./use-auto-refresh";
import { useGlobalKeys } from "./use-global-keys";
import { useMainEvents } from "./use-main-events";
import { useUrlState } from "./use-url-state";
import { TITLES, viewTitle } from "./view-titles";

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
