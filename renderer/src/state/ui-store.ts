import { create } from "zustand";
import type { ActionSelection } from "../../../shared/domain/actions";
import type { ActionKind, Headline, ProviderCode } from "../../../shared/domain/codes";
import { storeColumns, storedColumns } from "./column-choice";
import type { ColumnId, SortState } from "./columns";
import { keepLiveSelection, moveCursor, selectAllMatching, selectRange, toggleOne } from "./selection";

/**
 * UI state only: what the operator is looking at and has picked. Everything that comes from main
 * (inventory, details, plans, jobs, audit, settings) lives in react-query, never here.
 */

export type View = "leases" | "pictures" | "audit" | "settings" | "untracked" | "quarantines" | "janitor";
export type ThemeChoice = "system" | "light" | "dark";

/** The sidebar's choice: every environment, one environment, or one account's untracked sandboxes. */
export type Scope =
  | { kind: "all" }
  | { kind: "environment"; key: string; name: string }
  | { kind: "untracked"; credential: string; origin: string };

/** The action the operator started: main is asked for a plan for `selection`. */
export interface PendingAction {
  action: ActionKind;
  selection: ActionSelection;
  /** What the operator picked it from, for the dialog title ("3 selected leases", "lease L-1"). */
  label: string;
  /** A single row's sandbox id, which a forced destroy asks to be typed back. */
  sandboxId: string | null;
}

interface UiState {
  view: View;
  scope: Scope;
  headlines: ReadonlySet<Headline>;
  providers: ReadonlySet<ProviderCode>;
  search: string;
  sort: SortState | null;
  selected: ReadonlySet<string>;
  /** The optional lease-table columns this operator picked (remembered in this profile). */
  columns: ReadonlySet<ColumnId>;
  anchorId: string | null;
  cursorId: string | null;
  drawerLeaseId: string | null;
  theme: ThemeChoice;
  paletteOpen: boolean;
  shortcutsOpen: boolean;
  pendingAction: PendingAction | null;
  /** Jobs whose progress panel is shown (the newest last). */
  watchedJobIds: readonly string[];

  showView(view: View): void;
  setScope(scope: Scope): void;
  toggleHeadline(headline: Headline): void;
  toggleProvider(provider: ProviderCode): void;
  clearFilters(): void;
  setSearch(search: string): void;
  sortBy(sort: SortState | null): void;
  toggleSelected(id: string, visibleIds: readonly string[], range: boolean): void;
  selectAll(visibleIds: readonly string[]): void;
  clearSelection(): void;
  /** Drops selected leases that are no longer listed, or are over, after the inventory changed. */
  pruneSelection(rows: readonly { leaseId: string; headline: string }[]): void;
  toggleColumn(column: ColumnId): void;
  setCursor(id: string | null): void;
  moveCursor(visibleIds: readonly string[], delta: number): void;
  openDrawer(leaseId: string): void;
  closeDrawer(): void;
  setTheme(theme: ThemeChoice): void;
  setPaletteOpen(open: boolean): void;
  setShortcutsOpen(open: boolean): void;
  startAction(action: PendingAction): void;
  cancelAction(): void;
  watchJob(jobId: string): void;
  unwatchJob(jobId: string): void;
}

function toggled<T>(set: ReadonlySet<T>, value: T): Set<T> {
  const next = new Set(set);
  if (next.has(value)) next.delete(value);
  else next.add(value);
  return next;
}

const THEME_KEY = "leasekeeper.theme";

function storedTheme(): ThemeChoice {
  try {
    const value = globalThis.localStorage?.getItem(THEME_KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

const EMPTY = new Set<never>();

export const useUi = create<UiState>()((set) => ({
  view: "leases",
  scope: { kind: "all" },
  headlines: EMPTY,
  providers: EMPTY,
  search: "",
  sort: { column: "headline", desc: false },
  selected: EMPTY,
  columns: storedColumns(globalThis.localStorage),
  anchorId: null,
  cursorId: null,
  drawerLeaseId: null,
  theme: storedTheme(),
  paletteOpen: false,
  shortcutsOpen: false,
  pendingAction: null,
  watchedJobIds: [],

  showView: (view) => set({ view }),
  setScope: (scope) =>
    set({
      scope,
      view: scope.kind === "untracked" ? "untracked" : "leases",
      selected: EMPTY,
      anchorId: null,
    }),
  toggleHeadline: (headline) => set((state) => ({ headlines: toggled(state.headlines, headline) })),
  toggleProvider: (provider) => set((state) => ({ providers: toggled(state.providers, provider) })),
  clearFilters: () => set({ headlines: EMPTY, providers: EMPTY, search: "" }),
  setSearch: (search) => set({ search }),
  sortBy: (sort) => set({ sort }),
  toggleSelected: (id, visibleIds, range) =>
    set((state) => ({
      selected: range
        ? selectRange(state.selected, visibleIds, state.anchorId, id)
        : toggleOne(state.selected, id),
      anchorId: id,
      cursorId: id,
    })),
  selectAll: (visibleIds) => set({ selected: selectAllMatching(visibleIds) }),
  clearSelection: () => set({ selected: EMPTY, anchorId: null }),
  pruneSelection: (rows) =>
    set((state) => {
      const selected = keepLiveSelection(state.selected, rows);
      return selected === state.selected ? state : { selected };
    }),
  toggleColumn: (column) =>
    set((state) => {
      const columns = toggled(state.columns, column);
      storeColumns(globalThis.localStorage, columns);
      return { columns };
    }),
  setCursor: (cursorId) => set({ cursorId }),
  moveCursor: (visibleIds, delta) =>
    set((state) => ({ cursorId: moveCursor(visibleIds, state.cursorId, delta) })),
  openDrawer: (drawerLeaseId) => set({ drawerLeaseId, cursorId: drawerLeaseId }),
  closeDrawer: () => set({ drawerLeaseId: null }),
  setTheme: (theme) => {
    try {
      if (theme === "system") globalThis.localStorage?.removeItem(THEME_KEY);
      else globalThis.localStorage?.setItem(THEME_KEY, theme);
    } catch {
      // Storage can be unavailable (private mode); the choice then lasts for this window only.
    }
    set({ theme });
  },
  setPaletteOpen: (paletteOpen) => set({ paletteOpen }),
  setShortcutsOpen: (shortcutsOpen) => set({ shortcutsOpen }),
  startAction: (pendingAction) => set({ pendingAction, paletteOpen: false }),
  cancelAction: () => set({ pendingAction: null }),
  watchJob: (jobId) =>
    set((state) => ({
      watchedJobIds: state.watchedJobIds.includes(jobId)
        ? state.watchedJobIds
        : [...state.watchedJobIds, jobId],
    })),
  unwatchJob: (jobId) =>
    set((state) => ({ watchedJobIds: state.watchedJobIds.filter((id) => id !== jobId) })),
}));

export type { ColumnId };
