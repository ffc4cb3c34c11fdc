import * as Dialog from "@radix-ui/react-dialog";
import { Command } from "cmdk";
import { useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import { HEADLINES } from "../../../../shared/domain/codes";
import { useUi } from "../../app/ui-store";
import { useInventory, useRefreshInventory } from "../../app/use-inventory";
import { actionLabel, isOffered, singleLeaseAction } from "../actions/ActionButton";
import { selectionAction } from "../leases/SelectionBar";
import "./command-palette.css";

/**
 * Ctrl/Cmd-K: every action the UI offers, by name. Release and Destroy act on the selection, or on the
 * row under the cursor; an action main does not allow for that row is listed but disabled, with why.
 */
export function CommandPalette() {
  const ui = useUi(
    useShallow((state) => ({
      open: state.paletteOpen,
      setOpen: state.setPaletteOpen,
      selected: state.selected,
      cursorId: state.cursorId,
      drawerLeaseId: state.drawerLeaseId,
      startAction: state.startAction,
      showView: state.showView,
      setScope: state.setScope,
      toggleHeadline: state.toggleHeadline,
      clearFilters: state.clearFilters,
      setTheme: state.setTheme,
      openDrawer: state.openDrawer,
    })),
  );
  const inventory = useInventory();
  const refresh = useRefreshInventory();
  const rows = inventory.data?.rows;
  const focusId = ui.drawerLeaseId ?? ui.cursorId;
  const focused = useMemo(
    () => (focusId ? rows?.find((row) => row.leaseId === focusId) : undefined),
    [rows, focusId],
  );

  const run = (effect: () => void) => {
    ui.setOpen(false);
    effect();
  };

  return (
    <Dialog.Root open={ui.open} onOpenChange={ui.setOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog palette" data-testid="command-palette" aria-describedby={undefined}>
          <Dialog.Title className="visually-hidden">Command palette</Dialog.Title>
          <Command label="Commands" loop>
            <Command.Input
              className="palette-input"
              placeholder="Type a command…"
              data-testid="palette-input"
              autoFocus
            />
            <Command.List className="palette-list">
              <Command.Empty className="palette-empty">No command matches.</Command.Empty>
              {(ui.selected.size > 0 || focused) && (
                <Command.Group heading="Actions">
                  {ui.selected.size > 0 &&
                    (["release", "destroy"] as const).map((action) => (
                      <Command.Item
                        key={`selection-${action}`}
                        value={`${action} selected leases`}
                        data-testid={`palette-${action}-selection`}
                        onSelect={() =>
                          run(() => ui.startAction(selectionAction(action, ui.selected, rows ?? [])))
                        }
                      >
                        {actionLabel(action)} {ui.selected.size} selected lease
                        {ui.selected.size === 1 ? "" : "s"}…
                      </Command.Item>
                    ))}
                  {focused &&
                    (["release", "destroy"] as const).map((action) => {
                      const offered = isOffered(action, focused);
                      return (
                        <Command.Item
                          key={`row-${action}`}
                          value={`${action} this lease ${focused.leaseId}`}
                          disabled={!offered}
                          data-testid={`palette-${action}-row`}
                          onSelect={() => run(() => ui.startAction(singleLeaseAction(action, focused)))}
                        >
                          {actionLabel(action)} lease <bdi className="mono palette-id">{focused.leaseId}</bdi>
                          {!offered && <span className="palette-hint">not allowed — open it to see why</span>}
                        </Command.Item>
                      );
                    })}
                  {focused && (
                    <Command.Item
                      value="open details of this lease"
                      onSelect={() => run(() => ui.openDrawer(focused.leaseId))}
                    >
                      Open details of <bdi className="mono palette-id">{focused.leaseId}</bdi>
                    </Command.Item>
                  )}
                </Command.Group>
              )}
              <Command.Group heading="Go to">
                <Command.Item
                  value="all environments leases"
                  onSelect={() => run(() => ui.setScope({ kind: "all" }))}
                >
                  All environments
                </Command.Item>
                <Command.Item value="pictures charts" onSelect={() => run(() => ui.showView("pictures"))}>
                  Pictures
                </Command.Item>
                <Command.Item value="audit log" onSelect={() => run(() => ui.showView("audit"))}>
                  Audit log
                </Command.Item>
                <Command.Item
                  value="settings credentials sources"
                  onSelect={() => run(() => ui.showView("settings"))}
                >
                  Settings
                </Command.Item>
              </Command.Group>
              <Command.Group heading="Filter">
                {HEADLINES.map((headline) => (
                  <Command.Item
                    key={headline}
                    value={`filter ${headline}`}
                    onSelect={() => run(() => ui.toggleHeadline(headline))}
                  >
                    Toggle filter: {headline}
                  </Command.Item>
                ))}
                <Command.Item value="clear filters" onSelect={() => run(ui.clearFilters)}>
                  Clear filters
                </Command.Item>
              </Command.Group>
              <Command.Group heading="App">
                <Command.Item value="refresh inventory" onSelect={() => run(() => void refresh())}>
                  Refresh inventory <kbd>R</kbd>
                </Command.Item>
                <Command.Item value="theme light" onSelect={() => run(() => ui.setTheme("light"))}>
                  Theme: light
                </Command.Item>
                <Command.Item value="theme dark" onSelect={() => run(() => ui.setTheme("dark"))}>
                  Theme: dark
                </Command.Item>
                <Command.Item value="theme system" onSelect={() => run(() => ui.setTheme("system"))}>
                  Theme: follow the system
                </Command.Item>
              </Command.Group>
            </Command.List>
          </Command>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
