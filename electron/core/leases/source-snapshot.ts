import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import type { SourceRead } from "./source-read.js";

// PostgreSQL writes a uuid in lower-case hex, so comparing the text orders ids as its primary key does.
export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A read gathered whole into one snapshot: what `LeaseSource.load` hands back, for a caller that holds
 * every row at once. A read ordered `by-id` is sorted so; a read of changed rows is laid over `previous`
 * (the rows of the snapshot it read from) as `mergeChangedRows` lays it.
 */
export async function snapshotOf(
  read: SourceRead,
  previous?: ReadonlyMap<string, LeaseRow>,
): Promise<SourceSnapshot> {
  if (read.scope === "changed" && previous === undefined) {
    await read.cancel();
    throw new Error(`${read.sourceId}: a read of changed rows needs the rows it read from.`);
  }
  let leases: LeaseRow[] = [];
  for await (const page of read.pages()) for (const row of page) leases.push(row);
  const end = read.end();
  if (read.scope === "changed") leases = mergeChangedRows(previous!, leases, end.left);
  else if (read.order === "by-id") leases.sort(byId);
  return {
    sourceId: read.sourceId,
    environments: [...read.environments],
    leases,
    companies: [...(end.companies ?? read.companies)],
    problems: end.problems,
    gaps: end.gaps,
    ...(read.installedPlugin === undefined ? {} : { installedPlugin: read.installedPlugin }),
    ...(read.note === undefined ? {} : { note: read.note }),
    ...(end.readUpTo === undefined ? {} : { readUpTo: end.readUpTo }),
  };
}

/**
 * The previous rows with the rows read again over them: a row read again replaces the previous one of
 * its id, a row named in `left` is dropped, and every other row is the previous object itself, so a
 * caller tells unchanged rows by identity. In id order, as a whole read of the source hands them.
 */
export function mergeChangedRows(
  previous: ReadonlyMap<string, LeaseRow>,
  read: readonly LeaseRow[],
  left: Iterable<string>,
): LeaseRow[] {
  const replaced = new Set(left);
  for (const row of read) replaced.add(row.id);
  const kept: LeaseRow[] = [];
  for (const [id, row] of previous) if (!replaced.has(id)) kept.push(row);
  if (!isSortedById(kept)) kept.sort(byId);
  const fresh = isSortedById(read) ? read : [...read].sort(byId);
  const leases: LeaseRow[] = new Array(kept.length + fresh.length);
  let k = 0;
  let f = 0;
  for (let at = 0; at < leases.length; at++) {
    leases[at] =
      f >= fresh.length || (k < kept.length && kept[k]!.id < fresh[f]!.id) ? kept[k++]! : fresh[f++]!;
  }
  return leases;
}

function isSortedById(rows: readonly { id: string }[]): boolean {
  for (let at = 1; at < rows.length; at++) if (rows[at - 1]!.id >= rows[at]!.id) return false;
  return true;
}
