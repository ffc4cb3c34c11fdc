import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow, SourceProblem } from "../../../shared/domain/paperclip.js";
import { isRefusedRedirect } from "../fetch-errors.js";
import { parseEnvironment, parseEnvironments, parseLeaseRow, parseLeaseRows } from "./rows.js";
import { isValidRowId, type LeaseSource, SourceError } from "./source.js";

export interface PaperclipSourceOptions {
  id: string;
  /** The instance's base URL (routes are joined as `${url}/api/...`). */
  url: string;
  /** A board API key, sent as `Authorization: Bearer`; null for a `local_trusted` instance. */
  token: string | null;
  timeoutMs: number;
  /** Environments whose leases are fetched at once. */
  concurrency?: number;
  fetch?: typeof fetch;
}

/**
 * A Paperclip instance over its REST API, read-only (`server/src/routes/environments.ts`):
 * `GET /api/companies` → `GET /api/companies/:companyId/environments` for each (environments are
 * instance-scoped, so the lists repeat and are de-duplicated; forks that do filter by company are
 * covered too) → `GET /api/environments/:id/leases` for each CreateOS sandbox environment. There is no
 * pagination and no cross-environment lease list. Error bodies (`{ error }`) are never read.
 */
export class PaperclipSource implements LeaseSource {
  readonly kind = "paperclip" as const;
  readonly id: string;
  readonly #base: string;
  readonly #token: string | null;
  readonly #timeoutMs: number;
  readonly #concurrency: number;
  readonly #fetch: typeof fetch;

  constructor(options: PaperclipSourceOptions) {
    if (options.token !== null && /[\r\n\0]/.test(options.token)) {
      throw new SourceError(options.id, "the Paperclip token contains a line break or NUL and was refused.");
    }
    this.id = options.id;
    this.#base = options.url.replace(/\/+$/, "");
    this.#token = options.token?.trim() || null;
    this.#timeoutMs = options.timeoutMs;
    this.#concurrency = options.concurrency ?? 4;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  async load(options: { signal?: AbortSignal } = {}): Promise<SourceSnapshot> {
    const signal = options.signal;
    const companies = await this.#getList("/api/companies", "listing companies", signal);
    const companyIds = companies.flatMap((company) => {
      const id = (company as { id?: unknown } | null)?.id;
      return isValidRowId(id) ? [id] : [];
    });

    const environmentLists = await mapLimit(companyIds, this.#concurrency, (companyId) =>
      this.#getList(
        `/api/companies/${encodeURIComponent(companyId)}/environments`,
        "listing environments",
        signal,
      ),
    );
    const seen = new Set<unknown>();
    const uniqueEnvironments = environmentLists.flat().filter((item) => {
      const id = (item as { id?: unknown } | null)?.id;
      if (id !== undefined && seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    const parsedEnvironments = parseEnvironments(uniqueEnvironments, this.id, "environments");
    const problems: SourceProblem[] = [...parsedEnvironments.problems];

    const environments: Environment[] = [];
    parsedEnvironments.rows.forEach((environment, position) => {
      const index = parsedEnvironments.indices[position]!;
      if (environment.driver !== "sandbox") return;
      const provider = environment.config.provider;
      if (provider === "createos") environments.push(environment);
      // A non-admin board session sees every config as `{}`: say so instead of silently finding nothing.
      else if (provider === undefined) {
        problems.push({
          source: this.id,
          index,
          message: `environments[${index}].config: hidden by Paperclip (instance admin access needed); its leases were not read.`,
        });
      }
    });

    const leaseLists = await mapLimit(environments, this.#concurrency, (environment) =>
      this.#getList(
        `/api/environments/${encodeURIComponent(environment.id)}/leases`,
        `listing leases of environment ${environment.id}`,
        signal,
      ),
    );
    const leases: LeaseRow[] = [];
    const seenLeases = new Set<string>();
    environments.forEach((environment, position) => {
      const parsed = parseLeaseRows(
        leaseLists[position] ?? [],
        this.id,
        `environment ${environment.id} leases`,
      );
      problems.push(...parsed.problems);
      for (const row of parsed.rows) {
        if (seenLeases.has(row.id)) continue;
        seenLeases.add(row.id);
        leases.push(row);
      }
    });

    return { sourceId: this.id, environments, leases, companies: [], problems, gaps: [] };
  }

  async readLease(leaseId: string, options: { signal?: AbortSignal } = {}): Promise<LeaseRow | null> {
    if (!isValidRowId(leaseId)) throw new SourceError(this.id, "the lease id is not valid.");
    const body = await this.#getJson(
      `/api/environment-leases/${encodeURIComponent(leaseId)}`,
      "reading a lease",
      options.signal,
      { notFoundIsNull: true },
    );
    if (body === null) return null;
    const parsed = parseLeaseRow(body);
    if (!parsed.ok) throw new SourceError(this.id, `the lease row is malformed (${parsed.message})`);
    return parsed.row;
  }

  async readEnvironment(
    environmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Environment | null> {
    if (!isValidRowId(environmentId)) throw new SourceError(this.id, "the environment id is not valid.");
    const body = await this.#getJson(
      `/api/environments/${encodeURIComponent(environmentId)}`,
      "reading an environment",
      options.signal,
      { notFoundIsNull: true },
    );
    if (body === null) return null;
    const parsed = parseEnvironment(body);
    if (!parsed.ok) throw new SourceError(this.id, `the environment is malformed (${parsed.message})`);
    return parsed.environment;
  }

  async #getList(path: string, activity: string, signal: AbortSignal | undefined): Promise<unknown[]> {
    const body = await this.#getJson(path, activity, signal);
    if (!Array.isArray(body))
      throw new SourceError(this.id, `Paperclip returned an invalid response while ${activity}.`);
    return body;
  }

  async #getJson(
    path: string,
    activity: string,
    signal: AbortSignal | undefined,
    options: { notFoundIsNull?: boolean } = {},
  ): Promise<unknown> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.#token !== null) headers.authorization = `Bearer ${this.#token}`;
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(`${this.#base}${path}`, {
        headers,
        redirect: "error",
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) throw new SourceError(this.id, `Paperclip request timed out while ${activity}.`);
      if (isRefusedRedirect(error)) {
        throw new SourceError(
          this.id,
          `Paperclip answered with a redirect while ${activity}; redirects are refused.`,
        );
      }
      throw new SourceError(this.id, `Paperclip connection failed while ${activity}.`);
    }
    if (options.notFoundIsNull && response.status === 404) {
      await response.body?.cancel().catch(() => undefined);
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new SourceError(this.id, `Paperclip request failed (HTTP ${response.status}) while ${activity}.`);
    }
    try {
      return await response.json();
    } catch {
      if (signal?.aborted) throw signal.reason;
      throw new SourceError(this.id, `Paperclip returned an invalid response while ${activity}.`);
    }
  }
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  });
  await Promise.all(workers);
  return results;
}
