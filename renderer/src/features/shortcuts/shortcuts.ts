/**
 * Every key the app binds, as the shortcuts dialog lists them. The handlers live in use-global-keys
 * (everywhere), the lease table's keyboard hook, the search box and the dialogs; a key added there is
 * added here, or the operator never learns of it.
 */
export interface Shortcut {
  keys: readonly string[];
  does: string;
}

export interface ShortcutGroup {
  where: string;
  shortcuts: readonly Shortcut[];
}

export const SHORTCUTS: readonly ShortcutGroup[] = [
  {
    where: "Everywhere",
    shortcuts: [
      { keys: ["Ctrl K", "⌘ K"], does: "Open or close the command palette" },
      { keys: ["?"], does: "Show these shortcuts" },
      { keys: ["/"], does: "Jump to the lease search" },
      { keys: ["R"], does: "Refresh the inventory now" },
      { keys: ["Esc"], does: "Close the open dialog, drawer or palette" },
    ],
  },
  {
    where: "Lease table",
    shortcuts: [
      { keys: ["↓", "J"], does: "Move the cursor down a row" },
      { keys: ["↑", "K"], does: "Move the cursor up a row" },
      { keys: ["Page Down", "Page Up"], does: "Move the cursor twenty rows" },
      { keys: ["Home", "End"], does: "Move the cursor to the first or last row" },
      { keys: ["Space"], does: "Select or unselect the row under the cursor" },
      { keys: ["Shift Space"], does: "Select every row from the last selected one to the cursor" },
      { keys: ["Enter"], does: "Open the details of the row under the cursor" },
      { keys: ["X"], does: "Clear the selection" },
    ],
  },
  {
    where: "Search box",
    shortcuts: [
      { keys: ["Enter", "↓"], does: "Hand the keyboard back to the table" },
      { keys: ["Esc"], does: "Clear the search, then leave the box" },
    ],
  },
  {
    where: "Command palette",
    shortcuts: [
      { keys: ["↑", "↓"], does: "Move between matches" },
      { keys: ["Enter"], does: "Run the highlighted match" },
    ],
  },
];
