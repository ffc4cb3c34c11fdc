// What the simulator was asked, so tests can say "exactly one DELETE reached sb-…" instead of
// trusting a client's own account of what it sent.

/** An HTTP status, or what happened instead of one. */
export type Outcome = number | "dropped" | "hung";

export interface SimStats {
  total: number;
  /** "<METHOD> <route template>" → outcome → count, e.g. { "DELETE /v1/sandboxes/:id": { "200": 2 } }. */
  byRoute: Record<string, Record<string, number>>;
  rateLimited: number;
  /** sandbox id (as it appeared in the path) → "<METHOD> <route template>" → count. */
  perSandbox: Record<string, Record<string, number>>;
  /** Fault rules that fired (latency included), so a fault scenario can show its faults happened. */
  faultsFired: number;
  /** Rule label (its id, else "<METHOD or *> <path>") → times it fired. */
  faultsByRule: Record<string, number>;
}

export interface RecordedRequest {
  route: string;
  outcome: Outcome;
  sandboxId?: string;
  rateLimited?: boolean;
}

export class StatsRecorder {
  private stats = empty();

  record(request: RecordedRequest): void {
    this.stats.total += 1;
    bump(this.stats.byRoute, request.route, String(request.outcome));
    // Only the limiter's own refusals: an injected 429 is a fault, not the limit at work.
    if (request.rateLimited) this.stats.rateLimited += 1;
    if (request.sandboxId !== undefined) bump(this.stats.perSandbox, request.sandboxId, request.route);
  }

  /** A fault rule fired for a request (recorded before the request's own outcome). */
  fault(rule: { id?: string; method?: string; path: string }): void {
    this.stats.faultsFired += 1;
    const label = faultLabel(rule);
    this.stats.faultsByRule[label] = (this.stats.faultsByRule[label] ?? 0) + 1;
  }

  snapshot(): SimStats {
    return structuredClone(this.stats);
  }

  reset(): void {
    this.stats = empty();
  }
}

function empty(): SimStats {
  return { total: 0, byRoute: {}, rateLimited: 0, perSandbox: {}, faultsFired: 0, faultsByRule: {} };
}

export function faultLabel(rule: { id?: string; method?: string; path: string }): string {
  return rule.id ?? `${rule.method?.toUpperCase() ?? "*"} ${rule.path}`;
}

function bump(table: Record<string, Record<string, number>>, outer: string, inner: string): void {
  const row = table[outer] ?? {};
  row[inner] = (row[inner] ?? 0) + 1;
  table[outer] = row;
}
