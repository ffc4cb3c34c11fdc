/**
 * Literals for SQL text a person applies with psql (or node-postgres's simple query). Values never go
 * into SQL any other way. A string literal is safe whatever `standard_conforming_strings` says: without
 * backslashes it is a plain '…' literal (quotes doubled), with them an E'…' literal (backslashes doubled
 * too), which both settings read the same.
 */

export function sqlString(value: string): string {
  // PostgreSQL text cannot hold NUL; refusing is better than a literal that silently ends early.
  if (value.includes("\u0000")) throw new RangeError("A PostgreSQL string cannot hold a NUL character.");
  const quoted = value.replaceAll("'", "''");
  return value.includes("\\") ? `E'${quoted.replaceAll("\\", "\\\\")}'` : `'${quoted}'`;
}

export function sqlJsonb(value: unknown): string {
  return `${sqlString(JSON.stringify(value))}::jsonb`;
}

export function sqlTimestamp(iso: string): string {
  if (Number.isNaN(Date.parse(iso))) throw new RangeError("Not a timestamp.");
  return `${sqlString(iso)}::timestamptz`;
}

/**
 * Text for a `--` comment: one line, whatever it was given. A line break would end the comment and turn
 * the rest of a hostile value (a lease id, a provider name) into SQL.
 */
export function sqlComment(text: string): string {
  return `-- ${text.replace(/[\p{Cc}\u2028\u2029]/gu, " ")}`;
}
