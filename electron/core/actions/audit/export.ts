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

export function exportAudit(entries: readonly AuditEntry[], format: AuditExportFormat): string {
  if (format === "json") return `${JSON.stringify(entries, null, 2)}\n`;
  const lines = [CSV_COLUMNS.join(",")];
  for (const entry of entries)
    lines.push(CSV_COLUMNS.map((column) => csvCell(cellValue(entry, column))).join(","));
  return `${lines.join("\r\n")}\r\n`;
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
 * One RFC 4180 cell. A spreadsheet runs a cell that starts with = + - @ (or a tab or CR) as a formula,
 * and lease metadata is attacker-shaped text, so such cells get a leading apostrophe first.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "string" ? value : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
