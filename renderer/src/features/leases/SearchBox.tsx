import { forwardRef } from "react";
import { useUi } from "../../state/ui-store";

/** Text search over lease ids, sandbox ids, environment names and ids, and company ids. */
export const SearchBox = forwardRef<HTMLInputElement, { pending: boolean }>(function SearchBox(
  { pending },
  ref,
) {
  const search = useUi((state) => state.search);
  const setSearch = useUi((state) => state.setSearch);
  return (
    <input
      ref={ref}
      type="search"
      className="input search"
      placeholder="Search ids and names  ( / )"
      aria-label="Search leases by id or name"
      data-testid="search"
      value={search}
      aria-busy={pending}
      spellCheck={false}
      autoComplete="off"
      onChange={(event) => setSearch(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          if (search !== "") {
            event.stopPropagation();
            setSearch("");
          }
          (event.target as HTMLInputElement).blur();
        }
        if (event.key === "Enter" || event.key === "ArrowDown") {
          (event.target as HTMLInputElement).blur();
          document.querySelector<HTMLElement>("[data-testid='lease-table']")?.focus();
        }
      }}
    />
  );
});
