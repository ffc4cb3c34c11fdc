/**
 * One page of `GET /v1/sandboxes` as CreateOS sends it, read the way the SDK reads it: a JSend envelope
 * whose `data` is the paginated shape (`{ data: [...], pagination: { total, … } }`) or, from older
 * builds, a bare array that holds the whole list. Paging follows the server's `total` and the page's
 * own count, never the requested limit (CreateOS clamps it).
 */
export interface ListPage {
  views: unknown[];
  /** The listing's length as the server reports it; null for a shape that is the whole list. */
  total: number | null;
}

/** The page, or null when the body is not one (not JSON, not a success envelope, no list in it). */
export function readListPage(body: string): ListPage | null {
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof envelope !== "object" || envelope === null) return null;
  const { status, data } = envelope as { status?: unknown; data?: unknown };
  if (status !== "success") return null;
  if (Array.isArray(data)) return { views: data, total: null };
  if (typeof data !== "object" || data === null) return null;
  const { data: views, pagination } = data as { data?: unknown; pagination?: { total?: unknown } };
  if (!Array.isArray(views)) return null;
  const total = pagination?.total;
  return { views, total: typeof total === "number" ? total : null };
}

/** Whether the page after one at `offset` holding `count` views is to be asked for. */
export function hasNextPage(offset: number, count: number, total: number | null): boolean {
  return total !== null && count > 0 && offset + count < total;
}
