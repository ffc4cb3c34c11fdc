import { COLUMN_IDS, type ColumnId } from "./columns";

const KEY = "leasekeeper.columns";

/** The optional columns this operator picked last time, from this browser profile's storage. */
export function storedColumns(storage: Pick<Storage, "getItem"> | undefined): Set<ColumnId> {
  try {
    const raw = storage?.getItem(KEY);
    if (!raw) return new Set();
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return new Set();
    // A column a later version dropped, or a hand-edited value, is ignored rather than trusted.
    return new Set(parsed.filter((id): id is ColumnId => COLUMN_IDS.includes(id as ColumnId)));
  } catch {
    return new Set();
  }
}

export function storeColumns(storage: Pick<Storage, "setItem"> | undefined, picked: ReadonlySet<ColumnId>) {
  try {
    storage?.setItem(KEY, JSON.stringify([...picked]));
  } catch {
    // Storage can be unavailable (private mode); the choice then lasts for this window only.
  }
}
