/** Whether a key event belongs to a text field (so single-letter shortcuts must leave it alone). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = (target as HTMLInputElement).type;
  return !["checkbox", "radio", "button", "submit", "reset"].includes(type);
}

/** Whether focus is inside a dialog (the drawer, the plan, the palette), which handles its own keys. */
export function inDialog(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && target.closest("[role='dialog'], [role='alertdialog']") !== null;
}

/** Whether a modal dialog is open anywhere (the plan, the palette, the shortcuts): the table keys pause. */
export function modalOpen(): boolean {
  return (
    document.querySelector(
      "[data-testid='plan-dialog'], [data-testid='command-palette'], [data-testid='shortcuts-dialog']",
    ) !== null
  );
}
