import type { LeaseRow } from "../../../../shared/domain/paperclip.js";
import type { SourceRead } from "../../leases/source-read.js";

/**
 * A read that takes its first pages at once, up to `rows` rows, while the scan waits for CreateOS's
 * listings; the rest it reads only as the scan takes pages. The source's read thus overlaps the
 * listing, which takes seconds at pacing, yet no more than that many rows sit in memory waiting.
 */
export function prefetched(read: SourceRead, rows: number): SourceRead {
  const queue: (readonly LeaseRow[])[] = [];
  const iterator = read.pages()[Symbol.asyncIterator]();
  let queued = 0;
  let done = false;
  const failed: { error?: unknown; failed: boolean } = { failed: false };
  // Pulls pages until the queue holds `rows` rows or the source ends; a failure waits for the taker.
  const filling = (async () => {
    try {
      while (queued < rows) {
        const next = await iterator.next();
        if (next.done) {
          done = true;
          return;
        }
        queue.push(next.value);
        queued += next.value.length;
      }
    } catch (error) {
      failed.failed = true;
      failed.error = error;
    }
  })();
  let taken = false;
  return {
    sourceId: read.sourceId,
    environments: read.environments,
    companies: read.companies,
    ...(read.installedPlugin === undefined ? {} : { installedPlugin: read.installedPlugin }),
    ...(read.note === undefined ? {} : { note: read.note }),
    scope: read.scope,
    order: read.order,
    pages() {
      if (taken) throw new Error(`${read.sourceId}: a read's pages are taken once.`);
      taken = true;
      return (async function* () {
        await filling;
        try {
          while (queue.length > 0) yield queue.shift()!;
          if (failed.failed) throw failed.error;
          if (done) return;
          for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
        } finally {
          // A taker that stops early lets go of what the source holds open.
          await iterator.return?.();
        }
      })();
    },
    end: () => read.end(),
    async cancel() {
      await filling;
      await iterator.return?.();
      await read.cancel();
    },
  };
}
