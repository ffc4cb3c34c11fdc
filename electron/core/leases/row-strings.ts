import type { LeaseRow } from "../../../shared/domain/paperclip.js";

/** Distinct values a field may have and still be shared: beyond it the field is taken as unique per row. */
const DISTINCT_PER_FIELD = 256;
/** Longer strings are not looked up: a value that long is rarely repeated, and hashing it costs. */
const LONGEST = 96;
/** How deep into metadata strings are shared (`reusableSandboxLease.fingerprint` is two deep). */
const DEEPEST = 3;

/**
 * One copy of each string a read's rows repeat. A source's parser makes a new string for every value
 * it reads, and Paperclip's rows repeat most of theirs: every row of a company carries its id, every
 * CreateOS row "createos", the API URL, the plugin's key, the workspace path. At 100,000 rows those
 * copies were over half the strings the inventory worker held (decision 217). Each field keeps its own
 * table of values; a field with more distinct values than `DISTINCT_PER_FIELD` (a lease id, a time, a
 * sandbox id) stops being looked up, so the tables stay small and a read of unique values costs one
 * miss per field. One instance per read: the tables go when the read does, the shared strings stay with
 * the rows.
 */
export class RowStrings {
  readonly #root = new FieldNode();
  /** Strings replaced by an earlier copy of the same value, over every row shared. */
  get reused(): number {
    return this.#root.reusedBelow();
  }

  /** The row with its strings (and those of its metadata, a few levels deep) replaced by shared copies. */
  share(row: LeaseRow): LeaseRow {
    shareIn(row as unknown as Record<string, unknown>, this.#root, 0);
    return row;
  }
}

/** One field's shared values, and the fields of the objects it holds. */
class FieldNode {
  /** Null once the field has shown more distinct values than are worth sharing. */
  values: Map<string, string> | null = new Map();
  reused = 0;
  readonly #children = new Map<string, FieldNode>();

  reusedBelow(): number {
    let count = this.reused;
    for (const child of this.#children.values()) count += child.reusedBelow();
    return count;
  }

  child(key: string): FieldNode {
    let node = this.#children.get(key);
    if (node === undefined) {
      node = new FieldNode();
      this.#children.set(key, node);
    }
    return node;
  }

  shared(value: string): string {
    const values = this.values;
    if (values === null || value.length > LONGEST) return value;
    const known = values.get(value);
    if (known !== undefined) {
      this.reused += 1;
      return known;
    }
    // A field of mostly unique values: every later look-up would miss.
    if (values.size >= DISTINCT_PER_FIELD) this.values = null;
    else values.set(value, value);
    return value;
  }
}

function shareIn(object: Record<string, unknown>, node: FieldNode, depth: number): void {
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (typeof value === "string") object[key] = node.child(key).shared(value);
    else if (depth < DEEPEST && typeof value === "object" && value !== null && !Array.isArray(value))
      shareIn(value as Record<string, unknown>, node.child(key), depth + 1);
  }
}
