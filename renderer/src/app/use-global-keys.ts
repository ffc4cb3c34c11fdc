import { useEffect } from "react";
import { api } from "../api";
import { isTyping, modalOpen } from "../lib/keyboard";
import { useUi } from "../state/ui-store";
import { useRefreshInventory } from "../state/use-inventory";

/**
 * Keys that work everywhere: Ctrl/Cmd-K opens the command palette, R refreshes the inventory, / jumps to
 * the search, ? lists every shortcut. Electron's menu sends the same commands as `app:command` events.
 * A key bound here is listed in shortcuts.ts.
 */
export function useGlobalKeys(): void {
  const refresh = useRefreshInventory();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const ui = useUi.getState();
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "k") {
        event.preventDefault();
        ui.setPaletteOpen(!ui.paletteOpen);
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target) || modalOpen()) return;
      if (event.key === "?") {
        event.preventDefault();
        ui.setShortcutsOpen(true);
      } else if (event.key === "r" || event.key === "R") {
        event.preventDefault();
        void refresh();
      } else if (event.key === "/") {
        const search = document.querySelector<HTMLInputElement>("[data-testid='search']");
        if (search) {
          event.preventDefault();
          search.focus();
        }
      }
    };
    window.addEventListener("keydown", onKey);
    const stopCommands = api.on("app:command", ({ command }) => {
      if (command === "refresh-inventory") void refresh();
      if (command === "open-palette") useUi.getState().setPaletteOpen(true);
    });
    return () => {
      window.removeEventListener("keydown", onKey);
      stopCommands();
    };
  }, [refresh]);
}
