import * as Menu from "@radix-ui/react-dropdown-menu";
import { memo } from "react";
import { useUi } from "../../state/ui-store";
import { OPTIONAL_COLUMNS } from "./columns";

/**
 * The columns beyond the priority ones (origin, policy, exact acquired time, last used): a menu of
 * checkboxes, remembered for this operator. The priority columns are not offered, so the table always
 * answers what is wrong, whose and where. Memoized: it reads its own state, so the view's renders for
 * a keystroke or a chip click pass it by.
 */
export const ColumnChooser = memo(function ColumnChooser() {
  const picked = useUi((state) => state.columns);
  const toggleColumn = useUi((state) => state.toggleColumn);
  return (
    // Not modal: the table stays readable to assistive tech while the menu is open, and nothing behind
    // it is hidden with focusable controls inside.
    <Menu.Root modal={false}>
      <Menu.Trigger asChild>
        <button type="button" className="btn btn-small" data-testid="column-chooser">
          Columns{picked.size > 0 ? ` (+${picked.size})` : ""}
        </button>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content className="menu" align="end" sideOffset={4} data-testid="column-menu">
          <Menu.Label className="menu-label">More columns</Menu.Label>
          {OPTIONAL_COLUMNS.map((definition) => (
            <Menu.CheckboxItem
              key={definition.id}
              className="menu-item"
              checked={picked.has(definition.id)}
              onCheckedChange={() => toggleColumn(definition.id)}
              onSelect={(event) => event.preventDefault()}
              data-testid={`column-option-${definition.id}`}
            >
              <span className="menu-check" aria-hidden="true">
                {picked.has(definition.id) ? "✓" : ""}
              </span>
              {definition.header}
            </Menu.CheckboxItem>
          ))}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
});
