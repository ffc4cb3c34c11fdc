import { type Options, stringify } from "csv-stringify/sync";
import type { AuditEntry } from "../../../../shared/domain/actions.js";

export const AUDIT_EXPORT_FORMATS = ["csv", "json"] as const;
export type AuditExportFormat = (typeof AUDIT_EXPORT_FORMATS)[number];

/** Column order of the CSV export; nested values (verdict, evidence) are written as JSON text. */
const CSV_COLUMNS = [
  "id",
  "at",
  "kind",
  "operator",
  "host",
  "action",
  "planId",
  "jobId",
  "leaseId",
  "sandboxId",
  "origin",
  "environmentId",
  "environmentName",
  "companyId",
  "effect",
  "confirmation",
  "override",
  "outcome",
  "reason",
  "httpStatus",
  "durationMs",
  "message",
  "headline",
  "ownership",
  "provider",
  "flags",
  "evidence",
] as const;

/** The whole export as one text: the console's, which hands the file to the window in one answer. */
export function exportAudit(entries: readonly AuditEntry[], format: AuditExportFormat): string {
  return `${exportHead(format)}${exportPage(entries, format, true)}${exportTail(format, entries.length === 0)}`;
}

/** What the export starts with, before any entry: the CSV header, or the JSON array's bracket. */
export function exportHead(format: AuditExportFormat): string {
  if (format === "json") return "[";
  return stringify([], { ...CSV_OPTIONS, header: true, columns: [...CSV_COLUMNS] });
}

/**
 * Entries as the export writes them, read in order a page at a time: `first` when no entry was written
 * before them, so a JSON element after another is written after a comma. The pages joined between the
 * head and the tail are byte for byte the export of all their entries at once (JSON.stringify's
 * two-space layout: each element on its own lines, indented once).
 */
export function exportPage(
  entries: readonly AuditEntry[],
  format: AuditExportFormat,
  first: boolean,
): string {
  if (format === "json")
    return entries
      .map(
        (entry, index) =>
          `${first && index === 0 ? "" : ","}\n  ${JSON.stringify(entry, null, 2).replaceAll("\n", "\n  ")}`,
      )
      .join("");
  return stringify(
    entries.map((entry) => CSV_COLUMNS.map((column) => cellValue(entry, column))),
    CSV_OPTIONS,
  );
}

/** What the export ends with: nothing for CSV, the JSON array's closing bracket (`[]` when empty). */
export function exportTail(format: AuditExportFormat, empty: boolean): string {
  if (format === "json") return empty ? "]\n" : "\n]\n";
  return "";
}

function cellValue(entry: AuditEntry, column: (typeof CSV_COLUMNS)[number]): unknown {
  switch (column) {
    case "headline":
      return entry.verdict?.headline ?? null;
    case "ownership":
      return entry.verdict?.ownership.join(" ") ?? null;
    case "provider":
      return entry.verdict?.provider ?? null;
    case "flags":
      return entry.verdict?.flags.join(" ") ?? null;
    case "evidence":
      return entry.evidence === null ? null : JSON.stringify(entry.evidence);
    default:
      return (entry as Record<string, unknown>)[column] ?? null;
  }
}

/**
 * RFC 4180 with CRLF line ends. A cell holding a line break is quoted whatever the line end (csv-stringify
 * quotes only the record delimiter itself once one is set). A spreadsheet runs a cell that starts with
 * = + - @ (or a tab or CR, or the full-width = + - @) as a formula, and lease metadata is attacker-shaped
 * text, so such text cells get a leading apostrophe first; a negative number stays a number. Booleans
 * are written as true and false rather than csv-stringify's 1 and empty.
 */
const CSV_OPTIONS = {
  record_delimiter: "\r\n",
  quote_record_delimiter: true,
  escape_formulas: true,
  cast: { boolean: (value: boolean) => String(value) },
} satisfies Options;

/** One cell as the export writes it. */
export function csvCell(value: unknown): string {
  return stringify([[value]], { ...CSV_OPTIONS, eof: false });
}
