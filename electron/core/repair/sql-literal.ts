import format from "pg-format";

/**
 * Literals for SQL text a person applies with psql (or node-postgres's simple query). Values never go
 * into SQL any other way. A string literal is pg-format's: safe whatever `standard_conforming_strings`
 * says, since without backslashes it is a plain '…' literal (quotes doubled), with them an E'…' literal
 * (backslashes doubled too), which both settings read the same.
 */

export function sqlString(value: string): string {
  // PostgreSQL text cannot hold NUL, and pg-format passes it through; refusing is better than a literal
  // the server rejects or one that silently ends early.
  if (value.includes("\u0000")) throw new RangeError("A PostgreSQL string cannot hold a NUL character.");
  return format.literal(value);
}

/** JSON text cast to jsonb. Not pg-format's own object form: it would turn an array into a list. */
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
