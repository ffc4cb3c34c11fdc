import type { SourceSnapshot } from "../../../../shared/domain/inventory.js";
import type { LeaseRow } from "../../../../shared/domain/paperclip.js";
import { pagedRead } from "../paged-read.js";
import type { SourceRead } from "../source-read.js";

/** How a snapshot is handed over as a read (`snapshotRead`). */
export interface SnapshotReadOptions {
  /** Rows per page; the last page holds the rest. */
  pageSize?: number;
  /** `changed`: only these rows are handed over (the rest are as the last read left them), and `left` is gone. */
  changed?: { rows: readonly LeaseRow[]; left: readonly string[] };
  order?: SourceRead["order"];
}

/**
 * A snapshot held in memory handed over as a source's read, page by page: for tests of what consumes
 * reads (the scan that judges rows as they stream), with the pages, scope and order a real source has.
 */
export function snapshotRead(snapshot: SourceSnapshot, options: SnapshotReadOptions = {}): SourceRead {
  const pageSize = Math.max(1, options.pageSize ?? 100);
  const rows = options.changed?.rows ?? snapshot.leases;
  return pagedRead(
    {
      sourceId: snapshot.sourceId,
      environments: snapshot.environments,
      companies: snapshot.companies,
      ...(snapshot.installedPlugin === undefined ? {} : { installedPlugin: snapshot.installedPlugin }),
      ...(snapshot.note === undefined ? {} : { note: snapshot.note }),
      scope: options.changed === undefined ? "whole" : "changed",
      order: options.order ?? "as-read",
    },
    {
      async *pages() {
        for (let at = 0; at < rows.length; at += pageSize) yield rows.slice(at, at + pageSize);
        return {
          problems: snapshot.problems,
          gaps: snapshot.gaps,
          left: [...(options.changed?.left ?? [])],
          ...(snapshot.readUpTo === undefined ? {} : { readUpTo: snapshot.readUpTo }),
        };
      },
    },
  );
}
