import { type InventoryView, isCurrentView } from "../../../shared/contract/index.js";
import type { ViewMeta } from "../inventory/worker/protocol.js";
import type { HeldView } from "./held-view.js";

/** The stored view as main shows it at start, and how many lease rows its columns hold. */
export interface StoredHeldView {
  view: HeldView;
  leaseCount: number;
}

// Inside a JSON string every `"` is escaped, so none of these byte runs, each holding a `"` a
// backslash does not precede, can start inside one: each marks the structure it names. The view's
// keys are all fixed by its schema (no map is keyed by a row's data), and only the view's own lease
// columns are keyed `leases`.
const LEASES = Buffer.from('"leases":{', "utf8");
/** The lease columns' last array and object closed, the view's next key opened. */
const LEASES_END = Buffer.from(']},"', "utf8");
/** A column of numbers only, one per lease: its commas count the rows without reading an id. */
const ENVIRONMENT_COLUMN = Buffer.from('"environment":[', "utf8");
const COMMA = 0x2c;
const CLOSE_ARRAY = 0x5d;

/**
 * The view kept for the next start (`ViewStore.loadBytes`, the UTF-8 JSON `JSON.stringify` wrote), held
 * as those very bytes: they are what encoding the parsed view would give again. Main parses only the text
 * around the lease columns, which is all it reads itself, and counts the rows by the commas of a column
 * of numbers, so it builds no string per lease id. Null when the text is not laid out so (a view kept
 * under an older shape, or not JSON): the caller reads it the long way.
 */
export function storedHeldView(bytes: Uint8Array): StoredHeldView | null {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const key = text.indexOf(LEASES);
  if (key < 0) return null;
  const columns = key + LEASES.length - 1;
  const end = text.indexOf(LEASES_END, columns);
  if (end < 0) return null;
  const column = text.indexOf(ENVIRONMENT_COLUMN, columns);
  if (column < 0 || column > end) return null;
  const first = column + ENVIRONMENT_COLUMN.length;
  const closed = text.indexOf(CLOSE_ARRAY, first);
  if (closed < 0 || closed > end) return null;
  let leaseCount = closed === first ? 0 : 1;
  for (let at = first; at < closed; at += 1) if (text[at] === COMMA) leaseCount += 1;
  let parsed: Partial<InventoryView>;
  try {
    // The lease columns stand in as an empty set, so the shape's check reads the rest as it is.
    const around = `${text.toString("utf8", 0, columns)}{"leaseId":[]}${text.toString("utf8", end + 2)}`;
    parsed = JSON.parse(around) as Partial<InventoryView>;
  } catch {
    return null;
  }
  if (!isCurrentView(parsed)) return null;
  const { leases: _leases, ...meta } = parsed;
  return { view: { ...(meta as ViewMeta), bytes }, leaseCount };
}
