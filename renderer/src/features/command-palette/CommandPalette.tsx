import * as Dialog from "@radix-ui/react-dialog";
import { Command } from "cmdk";
import { useCallback, useMemo, useRef, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { useReturnFocus } from "../../lib/return-focus";
import { useUi } from "../../state/ui-store";
import { useInventory, useRefreshInventory } from "../../state/use-inventory";
import { actionLabel, isOffered, singleLeaseAction } from "../actions/ActionButton";
import { selectionAction } from "../leases/SelectionBar";
import {
  companyEntries,
  environmentEntries,
  leaseEntries,
  type PaletteCommand,
  type PaletteEntry,
  placeEntries,
  rankEntries,
} from "./palette-entries";
import "./command-palette.css";

/**
 * Ctrl/Cmd-K: find an environment, a company, a lease (by lease or sandbox id) or an action by name.
 * Release and Destroy act on the selection or the row under the cursor; an action main does not allow
 * for that row is listed but disabled. Bulk actions for an environment ask main for a plan, as the
 * table's own buttons do. The palette ranks its entries itself (exact ids first), so it never renders
 * one item per lease.
 */
export function CommandPalette() {
  const ui = useUi(
    useShallow((state) => ({
      open: state.paletteOpen,
      setOpen: state.setPaletteOpen,
      selected: state.selected,
      cursorId: state.cursorId,
      drawerLeaseId: state.drawerLeaseId,
    })),
  );
  const [query, setQuery] = useState("");
  const returnFocus = useReturnFocus(ui.open);
  // A command that opens something of its own (the drawer, a plan, the help) leaves focus where that put it.
  const handedOver = useRef(false);
  const inventory = useInventory();
  const refresh = useRefreshInventory();
  const table = inventory.data?.table;
  // Every lease becomes an entry only while the palette is open: 100,000 of them are not built at load.
  const rows = ui.open ? inventory.data?.rows : undefined;
  const view = inventory.data?.view;
  const focusId = ui.drawerLeaseId ?? ui.cursorId;
  const focused = useMemo(() => (focusId ? table?.find(focusId) : undefined), [table, focusId]);
  const findRow = useCallback((leaseId: string) => table?.find(leaseId), [table]);

  const found = useMemo(
    () => [
      ...(view ? environmentEntries(view) : []),
      ...(view ? companyEntries(view) : []),
      ...(rows ? leaseEntries(rows) : []),
      ...placeEntries(),
    ],
    [view, rows],
  );
  const contextual = useMemo((): PaletteEntry[] => {
    const entries: PaletteEntry[] = [];
    if (ui.selected.size > 0) {
      for (const action of ["release", "destroy"] as const) {
        const pending = selectionAction(action, ui.selected, findRow);
        entries.push({
          key: `selection ${action}`,
          group: "action",
          label: `${actionLabel(action)} ${ui.selected.size} selected lease${ui.selected.size === 1 ? "" : "s"}…`,
          terms: [`${action} selected leases`],
          command: { kind: "plan", ...pending },
        });
      }
    }
    if (focused) {
      for (const action of ["release", "destroy"] as const) {
        entries.push({
          key: `row ${action}`,
          group: "action",
          label: `${actionLabel(action)} lease ${focused.leaseId}`,
          terms: [`${action} this lease`],
          command: { kind: "plan", ...singleLeaseAction(action, focused) },
          ...(isOffered(action, focused) ? {} : { disabled: "not allowed — open it to see why" }),
        });
      }
      entries.push({
        key: "row open",
        group: "action",
        label: `Open details of ${focused.leaseId}`,
        terms: ["open details of this lease"],
        command: { kind: "open-lease", leaseId: focused.leaseId },
      });
    }
    return entries;
  }, [ui.selected, focused, findRow]);
  const ranked = useMemo(() => rankEntries([...contextual, ...found], query), [contextual, found, query]);

  const setOpen = (open: boolean) => {
    if (!open) setQuery("");
    ui.setOpen(open);
  };
  const choose = (command: PaletteCommand) => {
    handedOver.current = ["plan", "open-lease", "shortcuts"].includes(command.kind);
    setOpen(false);
    runCommand(command, () => void refresh());
  };

  return (
    <Dialog.Root open={ui.open} onOpenChange={setOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content
          className="dialog palette"
          data-testid="command-palette"
          aria-describedby={undefined}
          onCloseAutoFocus={(event) => {
            if (!handedOver.current) return returnFocus(event);
            handedOver.current = false;
            event.preventDefault();
          }}
        >
          <Dialog.Title className="visually-hidden">Command palette</Dialog.Title>
          <Command label="Commands" loop shouldFilter={false}>
            <Command.Input
              className="palette-input"
              placeholder="Find a lease, sandbox, environment or command…"
              data-testid="palette-input"
              value={query}
              onValueChange={setQuery}
              autoFocus
            />
            <Command.List className="palette-list" label="Matches">
              <Command.Empty className="palette-empty">Nothing matches.</Command.Empty>
              {ranked.map((entry) => (
                <Command.Item
                  key={entry.key}
                  value={entry.key}
                  disabled={entry.disabled !== undefined}
                  data-testid={testIdOf(entry)}
                  data-group={entry.group}
                  onSelect={() => choose(entry.command)}
                >
                  <span className="palette-label">
                    <bdi className="palette-title">{entry.label}</bdi>
                    {entry.detail && <bdi className="palette-detail mono">{entry.detail}</bdi>}
                  </span>
                  {entry.disabled ? (
                    <span className="palette-hint">{entry.disabled}</span>
                  ) : (
                    <span className="palette-group">{entry.group}</span>
                  )}
                </Command.Item>
              ))}
            </Command.List>
          </Command>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** The test ids the palette's items have always had, so the keyboard specs keep finding them. */
function testIdOf(entry: PaletteEntry): string {
  if (entry.key.startsWith("selection ")) return `palette-${entry.key.slice(10)}-selection`;
  if (entry.key === "row open") return "palette-open-row";
  if (entry.key.startsWith("row ")) return `palette-${entry.key.slice(4)}-row`;
  return `palette-${entry.group.replace(" ", "-")}`;
}

function runCommand(command: PaletteCommand, refresh: () => void): void {
  const ui = useUi.getState();
  switch (command.kind) {
    case "plan":
      ui.startAction({
        action: command.action,
        selection: command.selection,
        label: command.label,
        sandboxId: command.sandboxId,
      });
      return;
    case "open-lease":
      ui.showView("leases");
      ui.openDrawer(command.leaseId);
      return;
    case "scope":
      ui.setScope(command.scope);
      return;
    case "company":
      // Companies have no view of their own: the search finds every lease of the company.
      ui.setScope({ kind: "all" });
      ui.setSearch(command.companyId);
      return;
    case "view":
      ui.showView(command.view);
      return;
    case "toggle-filter":
      ui.toggleHeadline(command.headline);
      return;
    case "clear-filters":
      ui.clearFilters();
      return;
    case "refresh":
      refresh();
      return;
    case "theme":
      ui.setTheme(command.theme);
      return;
    case "shortcuts":
      ui.setShortcutsOpen(true);
      return;
  }
}
