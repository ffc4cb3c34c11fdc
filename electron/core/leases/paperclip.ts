import pLimit from "p-limit";
import { originOf } from "../../../shared/domain/api-url.js";
import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow, SourceGap, SourceProblem } from "../../../shared/domain/paperclip.js";
import { isRefusedRedirect } from "../fetch-errors.js";
import { inOrderAhead } from "./in-order-ahead.js";
import { pagedRead } from "./paged-read.js";
import {
  environmentIdOfEntry,
  gapsOf,
  parseCompanies,
  parseEnvironment,
  parseEnvironments,
  parseLeaseRow,
  parseLeaseRows,
} from "./rows.js";
import { isValidRowId, type LeaseSource, SourceError } from "./source.js";
import type { SourceRead, SourceReadEnd } from "./source-read.js";
import { snapshotOf } from "./source-snapshot.js";

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
 * `GET /api/companies` → the environments (once when they are instance-scoped, per company when they
 * carry a `companyId`) → `GET /api/environments/:id/leases` for each CreateOS sandbox environment.
 * There is no pagination and no cross-environment lease list, so each environment's list is a page of
 * the read. Error bodies (`{ error }`) are never read.
 * What could not be read completely (an environment it could not parse, a config it was not shown, a
 * lease list that failed) is a gap in the snapshot, so no sandbox it might name is called an orphan.
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
      throw new SourceError(
        options.id,
        "not-configured",
        "the Paperclip token contains a line break or NUL and was refused.",
      );
    }
    this.id = options.id;
    this.#base = options.url.replace(/\/+$/, "");
    this.#token = options.token?.trim() || null;
    this.#timeoutMs = options.timeoutMs;
    this.#concurrency = options.concurrency ?? 4;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  async load(options: { signal?: AbortSignal } = {}): Promise<SourceSnapshot> {
    return snapshotOf(await this.read(options));
  }

  /**
   * The companies and environments are listed first; then each CreateOS environment's lease list is a
   * page, handed over in the environments' order while the next lists are fetched (`concurrency` at
   * once), so the rows come in the same order whichever list answers first.
   */
  async read(options: { signal?: AbortSignal } = {}): Promise<SourceRead> {
    const signal = options.signal;
    const parsedCompanies = parseCompanies(
      await this.#getList("/api/companies", "listing companies", signal),
      this.id,
      "companies",
    );
    const problems: SourceProblem[] = [...parsedCompanies.problems];
    const gaps: SourceGap[] = [];
    const companyIds = parsedCompanies.rows.map((company) => company.id).filter(isValidRowId);
    // Lease rows always belong to a company, so an instance with none has none; but a board key with no
    // membership is also shown no company, and then every lease is out of sight.
    if (companyIds.length === 0) {
      gaps.push({
        source: this.id,
        origin: null,
        message:
          "Paperclip listed no company for this key, so no lease could be read; an instance admin's key sees them all.",
        // With no company, no environment was listed: what is out of sight is environments not shown.
        unlistedOnly: true,
      });
    }

    const rawEnvironments = await this.#listEnvironments(companyIds, signal);
    const parsedEnvironments = parseEnvironments(rawEnvironments, this.id, "environments");
    problems.push(...parsedEnvironments.problems);
    for (const problem of parsedEnvironments.problems) {
      const gap: SourceGap = {
        source: this.id,
        origin: null,
        message: `An environment could not be read (${problem.message}), so its leases are unknown.`,
      };
      // Its id may be readable when the rest is not: then that environment alone is unread.
      const environmentId = environmentIdOfEntry(rawEnvironments[problem.index], "environments");
      if (environmentId !== null) gap.environmentId = environmentId;
      // Else it is an environment not listed; each listed one's leases are a list of their own.
      else gap.unlistedOnly = true;
      gaps.push(gap);
    }

    const environments: Environment[] = [];
    parsedEnvironments.rows.forEach((environment, position) => {
      const index = parsedEnvironments.indices[position]!;
      if (environment.driver !== "sandbox") return;
      const provider = environment.config.provider;
      if (provider === "createos") environments.push(environment);
      // A non-admin board key sees every config as `{}`: whether this is a CreateOS environment, and at
      // which origin, is hidden, so its leases could name a sandbox anywhere.
      else if (provider === undefined) {
        problems.push({
          source: this.id,
          index,
          message: `environments[${index}].config: hidden by Paperclip (instance admin access needed); its leases were not read.`,
        });
        gaps.push({
          source: this.id,
          origin: null,
          message: `Paperclip hid the config of environment "${environment.name}" (instance admin access needed), so its leases were not read.`,
          environmentId: environment.id,
        });
      }
    });

    return pagedRead(
      {
        sourceId: this.id,
        environments,
        companies: parsedCompanies.rows,
        scope: "whole",
        order: "as-read",
      },
      { signal, pages: (pagesSignal) => this.#leasePages(environments, problems, gaps, pagesSignal) },
    );
  }

  /** Each environment's lease list, a page each, in the environments' order. */
  async *#leasePages(
    environments: readonly Environment[],
    problems: SourceProblem[],
    gaps: SourceGap[],
    signal: AbortSignal,
  ): AsyncGenerator<LeaseRow[], SourceReadEnd, undefined> {
    const lists = inOrderAhead(environments, this.#concurrency, (environment, stopped) =>
      this.#leaseList(environment, AbortSignal.any([signal, stopped])),
    );
    const seenLeases = new Set<string>();
    let position = 0;
    for await (const list of lists) {
      const environment = environments[position++]!;
      if (!list.ok) {
        const origin = originOf(environment.config.apiUrl);
        gaps.push({
          source: this.id,
          origin,
          message: leaseListGap(environment.name, origin, list),
          environmentId: environment.id,
        });
        continue;
      }
      const parsed = parseLeaseRows(list.items, this.id, `environment ${environment.id} leases`);
      problems.push(...parsed.problems);
      // A row that could not be parsed may be the one that names a listed sandbox; it is a row of this
      // environment's list, whatever it says of itself.
      for (const gap of gapsOf(parsed, list.items, "leases")) {
        gaps.push({
          ...gap,
          message: `In the leases of environment "${environment.name}", ${gap.message}, so not all of its leases are known.`,
          environmentId: environment.id,
        });
      }
      const page: LeaseRow[] = [];
      for (const row of parsed.rows) {
        if (seenLeases.has(row.id)) continue;
        seenLeases.add(row.id);
        page.push(row);
      }
      if (page.length > 0) yield page;
    }
    return { problems, gaps, left: [] };
  }

  /** One environment's lease list, or why it could not be read (a gap, not a failure of the source). */
  #leaseList(
    environment: Environment,
    signal: AbortSignal,
  ): Promise<{ ok: true; items: unknown[] } | { ok: false; message: string; status: number | null }> {
    return this.#getList(
      `/api/environments/${encodeURIComponent(environment.id)}/leases`,
      `listing leases of environment ${environment.id}`,
      signal,
    ).then(
      (items) => ({ ok: true as const, items }),
      (error: unknown) => {
        if (!(error instanceof SourceError)) throw error;
        const status = error instanceof PaperclipHttpError ? error.status : null;
        return { ok: false as const, message: error.reason, status };
      },
    );
  }

  /**
   * Current Paperclip's environments are instance-scoped (no `companyId`): every company's list is the
   * same, so one answer is all of them. Older versions scoped each environment to one company, and then
   * every company's list is read. A company with an empty list says nothing either way.
   */
  async #listEnvironments(
    companyIds: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<unknown[]> {
    const listOf = (companyId: string) =>
      this.#getList(
        `/api/companies/${encodeURIComponent(companyId)}/environments`,
        "listing environments",
        signal,
      );
    const lists: unknown[][] = [];
    let next = 0;
    while (next < companyIds.length) {
      const list = await listOf(companyIds[next++]!);
      lists.push(list);
      if (list.length === 0) continue;
      if (list.every((item) => !hasCompanyId(item))) return list;
      break;
    }
    lists.push(...(await mapLimit(companyIds.slice(next), this.#concurrency, listOf)));
    const seen = new Set<unknown>();
    return lists.flat().filter((item) => {
      const id = (item as { id?: unknown } | null)?.id;
      if (id !== undefined && seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }

  async readLease(leaseId: string, options: { signal?: AbortSignal } = {}): Promise<LeaseRow | null> {
    if (!isValidRowId(leaseId)) throw new SourceError(this.id, "invalid-id", "the lease id is not valid.");
    const body = await this.#getJson(
      `/api/environment-leases/${encodeURIComponent(leaseId)}`,
      "reading a lease",
      options.signal,
      { notFoundIsNull: true },
    );
    if (body === null) return null;
    const parsed = parseLeaseRow(body);
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `the lease row is malformed (${parsed.message})`);
    return parsed.row;
  }

  async readEnvironment(
    environmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Environment | null> {
    if (!isValidRowId(environmentId))
      throw new SourceError(this.id, "invalid-id", "the environment id is not valid.");
    const body = await this.#getJson(
      `/api/environments/${encodeURIComponent(environmentId)}`,
      "reading an environment",
      options.signal,
      { notFoundIsNull: true },
    );
    if (body === null) return null;
    const parsed = parseEnvironment(body);
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `the environment is malformed (${parsed.message})`);
    return parsed.environment;
  }

  async #getList(path: string, activity: string, signal: AbortSignal | undefined): Promise<unknown[]> {
    const body = await this.#getJson(path, activity, signal);
    if (!Array.isArray(body))
      throw new SourceError(
        this.id,
        "malformed",
        `Paperclip returned an invalid response while ${activity}.`,
      );
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
      if (timeout.aborted)
        throw new SourceError(this.id, "unreachable", `Paperclip request timed out while ${activity}.`);
      if (isRefusedRedirect(error)) {
        throw new SourceError(
          this.id,
          "unreachable",
          `Paperclip answered with a redirect while ${activity}; redirects are refused.`,
        );
      }
      throw new SourceError(this.id, "unreachable", `Paperclip connection failed while ${activity}.`);
    }
    if (options.notFoundIsNull && response.status === 404) {
      await response.body?.cancel().catch(() => undefined);
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      // Paperclip answers 401 for a Bearer token it cannot match, in every deployment mode, so a wrong
      // token is never read as "no token" on a local_trusted instance. The token itself is never named.
      if (response.status === 401) {
        throw new PaperclipHttpError(
          this.id,
          "not-configured",
          401,
          this.#token === null
            ? `Paperclip asked for a token (HTTP 401) while ${activity}; set a board API key for this source.`
            : `Paperclip refused the token (HTTP 401) while ${activity}: it is not a board API key of this instance (wrong, revoked or empty).`,
        );
      }
      throw new PaperclipHttpError(
        this.id,
        "unreachable",
        response.status,
        `Paperclip request failed (HTTP ${response.status}) while ${activity}.`,
      );
    }
    try {
      return await response.json();
    } catch {
      if (signal?.aborted) throw signal.reason;
      throw new SourceError(
        this.id,
        "malformed",
        `Paperclip returned an invalid response while ${activity}.`,
      );
    }
  }
}

/** A Paperclip answer that was not 2xx; the status lets a caller say what it likely means. */
class PaperclipHttpError extends SourceError {
  readonly status: number;

  constructor(sourceId: string, code: "not-configured" | "unreachable", status: number, message: string) {
    super(sourceId, code, message);
    this.status = status;
  }
}

/**
 * Why an environment's leases are missing from the snapshot. Paperclip maps every row of a lease list
 * before it answers and throws on a status, lease policy or cleanup status outside its enums
 * (`readEnum` in `server/src/services/environments.ts`), so one such row turns the whole list into a
 * 500: the likeliest reason, and the one an operator can act on, is said.
 */
function leaseListGap(
  environmentName: string,
  origin: string | null,
  list: { message: string; status: number | null },
): string {
  if (list.status !== 500)
    return `The leases of environment "${environmentName}" could not be read: ${list.message}`;
  const where = origin === null ? "no sandbox" : `no sandbox at ${origin}`;
  return (
    `The leases of environment "${environmentName}" were not read: Paperclip failed listing them (HTTP 500), ` +
    "as it does for the whole list when one row holds a status, lease policy or cleanup status it does not know. " +
    `Until they are read, ${where} is reported as untracked.`
  );
}

function hasCompanyId(item: unknown): boolean {
  const companyId = (item as { companyId?: unknown } | null)?.companyId;
  return companyId !== undefined && companyId !== null;
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  return pLimit(Math.max(1, Math.floor(limit))).map(items, (item) => fn(item));
}
