import type { LeaseRow } from "../../../../shared/domain/paperclip.js";
import type { SourceRead, SourceReadEnd } from "../source-read.js";
import { byId } from "../source-snapshot.js";

/** A read taken to its end: its pages as handed over, their rows in one list, and its end. */
export interface ReadToEnd {
  read: SourceRead;
  pages: (readonly LeaseRow[])[];
  rows: LeaseRow[];
  end: SourceReadEnd;
}

/** Takes every page of `read`; the rows of a `by-id` read are sorted by id, as its reader sorts them. */
export async function readToEnd(read: SourceRead): Promise<ReadToEnd> {
  const pages: (readonly LeaseRow[])[] = [];
  for await (const page of read.pages()) pages.push(page);
  const rows = pages.flat();
  if (read.order === "by-id") rows.sort(byId);
  return { read, pages, rows, end: read.end() };
}

/** The failure of a read, wherever it comes: from `read()` itself or from its pages. */
export async function failureOfRead(start: () => Promise<SourceRead>): Promise<unknown> {
  try {
    await readToEnd(await start());
  } catch (error) {
    return error;
  }
  throw new Error("the read did not fail");
}
