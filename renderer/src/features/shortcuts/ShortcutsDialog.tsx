import * as Dialog from "@radix-ui/react-dialog";
import { useReturnFocus } from "../../lib/return-focus";
import { useUi } from "../../state/ui-store";
import { SHORTCUTS } from "./shortcuts";
import "./shortcuts.css";

/** "?" (or the palette's "Keyboard shortcuts"): every key the app binds, grouped by where it works. */
export function ShortcutsDialog() {
  const open = useUi((state) => state.shortcutsOpen);
  const setOpen = useUi((state) => state.setShortcutsOpen);
  const returnFocus = useReturnFocus(open);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content
          className="dialog shortcuts"
          data-testid="shortcuts-dialog"
          aria-describedby={undefined}
          onCloseAutoFocus={returnFocus}
        >
          <div className="shortcuts-head">
            <Dialog.Title>Keyboard shortcuts</Dialog.Title>
            <Dialog.Close className="btn btn-small btn-ghost" data-testid="shortcuts-close">
              Close
            </Dialog.Close>
          </div>
          <div className="shortcuts-body">
            {SHORTCUTS.map((group) => (
              <section key={group.where} aria-labelledby={`shortcuts-${group.where}`}>
                <h3 id={`shortcuts-${group.where}`}>{group.where}</h3>
                <dl className="shortcuts-list">
                  {group.shortcuts.map((shortcut) => (
                    <div key={shortcut.does} className="shortcut" data-testid="shortcut">
                      <dt>
                        {shortcut.keys.map((key, at) => (
                          <span key={key}>
                            {at > 0 && <span className="muted"> or </span>}
                            <kbd>{key}</kbd>
                          </span>
                        ))}
                      </dt>
                      <dd>{shortcut.does}</dd>
                    </div>
                  ))}
                </dl>
              </section>
            ))}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
