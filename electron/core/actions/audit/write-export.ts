import type { AuditEntry } from "../../../../shared/domain/actions.js";
import { type AuditExportFormat, exportHead, exportPage, exportTail } from "./export.js";

/**
 * Where an export is written: a terminal, a pipe, a file. A stream answers `write` with false while it
 * holds more than it wants to, and says "drain" once it has let it go.
 */
export interface ExportSink {
  write(text: string): unknown;
  once?(event: "drain", listener: () => void): unknown;
}

/**
 * The export written as it is read: each page's entries go to the sink before the next page is read,
 * and a sink holding what it was given is let to drain first, so what is held at once is a page, not
 * the log. The bytes are those of the export of every entry at once.
 */
export async function writeAuditExport(
  pages: AsyncIterable<readonly AuditEntry[]>,
  format: AuditExportFormat,
  sink: ExportSink,
): Promise<void> {
  await put(sink, exportHead(format));
  let first = true;
  for await (const page of pages) {
    await put(sink, exportPage(page, format, first));
    first = first && page.length === 0;
  }
  await put(sink, exportTail(format, first));
}

async function put(sink: ExportSink, text: string): Promise<void> {
  if (text === "") return;
  if (sink.write(text) !== false || sink.once === undefined) return;
  await new Promise<void>((resolve) => sink.once!("drain", resolve));
}
