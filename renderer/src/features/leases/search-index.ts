import type { FilterColumns } from "./filter-columns";

/**
 * What the text search matches, for one inventory, in a compact form: the lower-cased lease and sandbox
 * ids of a block of rows in one string (instead of one string per row), and the environment and company
 * names once per lookup-table entry. A search runs `indexOf` over a few long strings and checks the
 * small tables, instead of testing 100,000 strings.
 *
 * It matches exactly what `searchHaystack` describes (ids and names, lower-cased, case-insensitive
 * substring): a needle without a NUL lies inside one field, so testing each field alone is the same
 * test; a needle with one falls back to the whole haystack per row.
 */
const BLOCK_ROWS = 2048;
const FIELD = "\u0000";
const ROW = "\u0001";

interface Block {
  /** The rows' `leaseId FIELD sandboxId`, lower-cased, each followed by ROW. */
  text: string;
  /** Where each row starts in `text`; one more entry, the text's length. */
  starts: Int32Array;
}

export class SearchIndex {
  private readonly view: FilterColumns;
  readonly size: number;
  private readonly blocks: Block[] = [];
  private last: { needle: string; hits: Uint8Array } | null = null;

  constructor(view: FilterColumns) {
    this.view = view;
    this.size = view.leases.leaseId.length;
  }

  private get blockCount(): number {
    return Math.ceil(this.size / BLOCK_ROWS);
  }

  /** Builds the next block; false when every block is built. */
  private buildNext(): boolean {
    const number = this.blocks.length;
    if (number >= this.blockCount) return false;
    const { leaseId, sandboxId } = this.view.leases;
    const from = number * BLOCK_ROWS;
    const to = Math.min(this.size, from + BLOCK_ROWS);
    const parts = new Array<string>(to - from);
    for (let at = from; at < to; at++)
      parts[at - from] = `${leaseId[at]}${FIELD}${sandboxId[at] ?? ""}${ROW}`;
    const raw = parts.join("");
    let text = raw.toLowerCase();
    if (text.length !== raw.length) {
      // A character whose lower case is longer (İ): lower-case field by field so the offsets hold.
      for (let at = from; at < to; at++) {
        parts[at - from] =
          `${leaseId[at]!.toLowerCase()}${FIELD}${(sandboxId[at] ?? "").toLowerCase()}${ROW}`;
      }
      text = parts.join("");
    }
    const starts = new Int32Array(to - from + 1);
    let offset = 0;
    for (let at = from; at < to; at++) {
      starts[at - from] = offset;
      offset += parts[at - from]!.length;
    }
    starts[to - from] = offset;
    this.blocks.push({ text, starts });
    return true;
  }

  /** Builds blocks while `more()` says there is time; true when the index is complete. */
  build(more: () => boolean = () => true): boolean {
    while (this.buildNext()) if (!more()) return this.blocks.length >= this.blockCount;
    return true;
  }

  /**
   * One byte per inventory position, 1 where the row matches `needle` (already trimmed and lower-cased,
   * not empty). The last answer is kept: the scope and the chips ask again with the same needle.
   */
  matches(needle: string): Uint8Array {
    if (this.last?.needle === needle) return this.last.hits;
    const hits = needle.includes(FIELD) ? this.matchWholeRows(needle) : this.matchFields(needle);
    this.last = { needle, hits };
    return hits;
  }

  private matchFields(needle: string): Uint8Array {
    this.build();
    const hits = new Uint8Array(this.size);
    const view = this.view;
    const environmentHits = view.environments.map(
      (environment) =>
        environment.name.toLowerCase().includes(needle) ||
        (environment.environmentId ?? "").toLowerCase().includes(needle),
    );
    const companyHits = view.companies.map(
      (companyId, at) =>
        companyId.toLowerCase().includes(needle) ||
        (view.companyNames[at] ?? "").toLowerCase().includes(needle),
    );
    const { environment, company } = view.leases;
    for (let at = 0; at < this.size; at++) {
      if (environmentHits[environment[at]!] === true || companyHits[company[at]!] === true) hits[at] = 1;
    }
    for (let number = 0; number < this.blocks.length; number++) {
      const { text, starts } = this.blocks[number]!;
      const base = number * BLOCK_ROWS;
      const rows = starts.length - 1;
      let row = 0;
      let from = 0;
      for (;;) {
        const found = text.indexOf(needle, from);
        if (found < 0) break;
        while (row + 1 < rows && starts[row + 1]! <= found) row++;
        // The match must end before the row's separator, or it spans two rows.
        if (found + needle.length < starts[row + 1]!) {
          hits[base + row] = 1;
          if (row + 1 >= rows) break;
          from = starts[row + 1]!;
        } else {
          from = found + 1;
        }
      }
    }
    return hits;
  }

  private matchWholeRows(needle: string): Uint8Array {
    const hits = new Uint8Array(this.size);
    for (let at = 0; at < this.size; at++) if (haystackAt(this.view, at).includes(needle)) hits[at] = 1;
    return hits;
  }
}

/** The same text `searchHaystack` builds from a decoded row, read from the columns. */
export function haystackAt(view: FilterColumns, at: number): string {
  const environment = view.environments[view.leases.environment[at]!];
  const company = view.leases.company[at]!;
  return [
    view.leases.leaseId[at]!,
    view.leases.sandboxId[at] ?? "",
    environment?.name ?? "",
    environment?.environmentId ?? "",
    (company >= 0 ? view.companies[company] : undefined) ?? "",
    (company >= 0 ? view.companyNames[company] : undefined) ?? "",
  ]
    .join(FIELD)
    .toLowerCase();
}
