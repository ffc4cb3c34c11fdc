import { useEffect, useRef } from "react";
import { inDialog, isTyping, modalOpen } from "../../lib/keyboard";
import { useUi } from "../../state/ui-store";

/**
 * Keyboard navigation of the lease table: ↓/j and ↑/k move the cursor, Home/End jump, space selects
 * (shift-space selects the range from the last selected row), Enter opens the drawer, x clears the
 * selection. Escape closes the drawer (the drawer handles it).
 */
export function useTableKeyboard(ids: readonly string[]): void {
  const idsRef = useRef(ids);
  idsRef.current = ids;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (isTyping(event.target) || inDialog(event.target) || modalOpen()) return;
      const ui = useUi.getState();
      const visible = idsRef.current;
      switch (event.key) {
        case "ArrowDown":
        case "j":
          ui.moveCursor(visible, 1);
          break;
        case "ArrowUp":
        case "k":
          ui.moveCursor(visible, -1);
          break;
        case "PageDown":
          ui.moveCursor(visible, 20);
          break;
        case "PageUp":
          ui.moveCursor(visible, -20);
          break;
        case "Home":
          ui.setCursor(visible[0] ?? null);
          break;
        case "End":
          ui.setCursor(visible[visible.length - 1] ?? null);
          break;
        case " ":
          if (ui.cursorId === null || isControl(event.target)) return;
          ui.toggleSelected(ui.cursorId, visible, event.shiftKey);
          break;
        case "Enter":
          if (ui.cursorId === null || isControl(event.target)) return;
          ui.openDrawer(ui.cursorId);
          break;
        case "x":
          ui.clearSelection();
          break;
        default:
          return;
      }
      event.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

/** Space and Enter on a focused button, link or checkbox belong to that control. */
function isControl(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement && target.closest("button, a, input, select, [role='button']") !== null
  );
}
