// Every list but /v1/rootfs pages the same way: `limit` defaults to 50 and is
// silently clamped to 500; the body is `{ data: [...], pagination: { total, limit, offset, count } }`.

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface Page<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; count: number };
}

export type PageRequest =
  | { ok: true; limit: number; offset: number }
  | { ok: false; field: string; message: string };

export function readPageRequest(query: URLSearchParams): PageRequest {
  const limit = readCount(query.get("limit"));
  if (limit === "invalid")
    return { ok: false, field: "limit", message: "limit must be a non-negative integer" };
  const offset = readCount(query.get("offset"));
  if (offset === "invalid")
    return { ok: false, field: "offset", message: "offset must be a non-negative integer" };
  // limit=0 means "the default", as an unset integer does in the Go server [I].
  const applied = limit === undefined || limit === 0 ? DEFAULT_PAGE_SIZE : Math.min(limit, MAX_PAGE_SIZE);
  return { ok: true, limit: applied, offset: offset ?? 0 };
}

export function page<T>(items: readonly T[], limit: number, offset: number): Page<T> {
  const data = items.slice(offset, offset + limit);
  return { data, pagination: { total: items.length, limit, offset, count: data.length } };
}

function readCount(raw: string | null): number | undefined | "invalid" {
  if (raw === null || raw === "") return undefined;
  if (!/^\d+$/.test(raw)) return "invalid";
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : "invalid";
}
