import { type Actor, readsEverything } from "./auth.js";
import { environmentEnumError, leaseEnumError } from "./enums.js";
import type { JsonObject, PaperclipEnvironment, PaperclipLease, PaperclipWorld } from "./world.js";

// Paperclip's read routes for companies, environments and leases (`server/src/routes/companies.ts`,
// `server/src/routes/environments.ts`), mounted under `/api`: bare JSON arrays and objects, and
// `{ error }` with the status Paperclip's helpers give (403 forbidden, 404 not found, 500 for a row its
// service cannot map). Read at de47c58c87611764d2c3b481fe1d537e182ed2b1: `server/src/routes/environments.ts`
// and `server/src/services/environments.ts`.

export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ReadContext {
  actor: Actor;
  world: Required<PaperclipWorld>;
  /** Environments served broken on purpose, to exercise a reader's handling of one it cannot parse. */
  malformed: ReadonlySet<string>;
  /** Whether a value outside Paperclip's enums fails the read, as its `readEnum` does (see `enums.ts`). */
  strictEnums: boolean;
  query: URLSearchParams;
}

const ok = (body: unknown): Answer => ({ status: 200, body });
const refuse = (status: number, error: string): Answer => ({ status, body: { error } });
/** What the error handler sends for an error that is not an `HttpError`: the message stays in the log. */
export const internalError = (): Answer => refuse(500, "Internal server error");

/** The service maps every row it read before answering, so one unmappable row fails the whole read. */
function unmappable(
  ctx: ReadContext,
  rows: readonly JsonObject[],
  check: (row: JsonObject) => string | null,
) {
  return ctx.strictEnums && rows.some((row) => check(row) !== null);
}

/** `assertBoard`: no actor (no key, an unknown key) is refused before anything is read. */
function boardRefusal(actor: Actor): Answer | null {
  return actor.type === "board" ? null : refuse(403, "Board access required");
}

/** `assertBoardOrgAccess`: a board user needs a membership somewhere unless it reads everything. */
function orgRefusal(actor: Actor): Answer | null {
  const notBoard = boardRefusal(actor);
  if (notBoard) return notBoard;
  if (readsEverything(actor) || (actor.type === "board" && actor.companyIds.length > 0)) return null;
  return refuse(403, "Company membership or instance admin access required");
}

/** Older, company-scoped Paperclip also checked the company (`assertCompanyAccess`). */
function companyRefusal(ctx: ReadContext, companyId: unknown): Answer | null {
  if (ctx.world.environmentShape !== "company-scoped" || readsEverything(ctx.actor)) return null;
  if (ctx.actor.type === "board" && typeof companyId === "string" && ctx.actor.companyIds.includes(companyId))
    return null;
  return refuse(403, "User does not have access to this company");
}

export function listCompanies(ctx: ReadContext): Answer {
  const refusal = boardRefusal(ctx.actor);
  if (refusal) return refusal;
  const { actor } = ctx;
  if (readsEverything(actor)) return ok(ctx.world.companies);
  const allowed = new Set(actor.type === "board" ? actor.companyIds : []);
  return ok(ctx.world.companies.filter((company) => allowed.has(company.id)));
}

export function listEnvironments(ctx: ReadContext, companyId: string): Answer {
  const refusal = orgRefusal(ctx.actor) ?? companyRefusal(ctx, companyId);
  if (refusal) return refusal;
  const status = ctx.query.get("status");
  const driver = ctx.query.get("driver");
  const rows = ctx.world.environments.filter(
    (environment) =>
      (ctx.world.environmentShape === "instance-scoped" || environment.companyId === companyId) &&
      (!status || environment.status === status) &&
      (!driver || environment.driver === driver),
  );
  if (unmappable(ctx, rows, environmentEnumError)) return internalError();
  // `orderBy(desc(environments.updatedAt), desc(environments.createdAt))`.
  return ok([...rows].sort(newestUpdateFirst).map((environment) => present(ctx, environment)));
}

export function getEnvironment(ctx: ReadContext, id: string): Answer {
  const refusal = orgRefusal(ctx.actor);
  if (refusal) return refusal;
  const environment = ctx.world.environments.find((candidate) => candidate.id === id);
  if (!environment) return refuse(404, "Environment not found");
  if (unmappable(ctx, [environment], environmentEnumError)) return internalError();
  return companyRefusal(ctx, environment.companyId) ?? ok(present(ctx, environment));
}

export function listLeases(ctx: ReadContext, environmentId: string): Answer {
  const refusal = orgRefusal(ctx.actor);
  if (refusal) return refusal;
  const environment = ctx.world.environments.find((candidate) => candidate.id === environmentId);
  if (!environment) return refuse(404, "Environment not found");
  if (unmappable(ctx, [environment], environmentEnumError)) return internalError();
  const companyDenied = companyRefusal(ctx, environment.companyId);
  if (companyDenied) return companyDenied;
  // `WHERE environment_id = :id`: an orphan row (its environment deleted, `environment_id` set null)
  // is in no environment's list.
  const status = ctx.query.get("status");
  const leases = ctx.world.leases
    .filter((lease) => lease.environmentId === environmentId && (!status || lease.status === status))
    .sort(newestUseFirst);
  if (unmappable(ctx, leases, leaseEnumError)) return internalError();
  return ok(leases);
}

export function getLease(ctx: ReadContext, leaseId: string): Answer {
  const refusal = orgRefusal(ctx.actor);
  if (refusal) return refusal;
  // `svc.getLeaseById` and nothing else: the route loads no environment, so an orphan row is served
  // like any other (every version read, from e4995bbb through de47c58c).
  const lease = ctx.world.leases.find((candidate) => candidate.id === leaseId);
  if (!lease) return refuse(404, "Environment lease not found");
  return unmappable(ctx, [lease], leaseEnumError) ? internalError() : ok(lease);
}

export const routeNotFound = (): Answer => refuse(404, "API route not found");

/** `ORDER BY last_used_at DESC, created_at DESC`. */
function newestUseFirst(a: PaperclipLease, b: PaperclipLease): number {
  return (
    byTimeDescending(a.lastUsedAt, b.lastUsedAt) ||
    byTimeDescending(a.createdAt, b.createdAt) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** Environments: newest `updatedAt` first, then newest `createdAt`; a row without either goes last. */
function newestUpdateFirst(a: PaperclipEnvironment, b: PaperclipEnvironment): number {
  // Paperclip writes `updatedAt` with every row (NOT NULL, default now()); a world that leaves it out
  // gets the row's `createdAt`, its value at insert.
  return (
    byTimeDescending(a.updatedAt ?? a.createdAt, b.updatedAt ?? b.createdAt) ||
    byTimeDescending(a.createdAt, b.createdAt)
  );
}

function byTimeDescending(a: unknown, b: unknown): number {
  const x = typeof a === "string" ? Date.parse(a) : Number.NaN;
  const y = typeof b === "string" ? Date.parse(b) : Number.NaN;
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1;
  return y - x;
}

/**
 * What a reader is shown of an environment: the current shape has no `companyId`, and anyone who is
 * not an instance admin (or the local board) gets the restricted view, `config: {}`, `envVars: {}` and
 * `metadata: null` (`redactEnvironmentForRestrictedView`).
 */
function present(ctx: ReadContext, environment: PaperclipEnvironment): JsonObject {
  const shown: JsonObject = { ...environment };
  if (ctx.world.environmentShape === "instance-scoped") delete shown.companyId;
  if (!readsEverything(ctx.actor)) {
    shown.config = {};
    if (Object.hasOwn(shown, "envVars")) shown.envVars = {};
    shown.metadata = null;
  }
  if (ctx.malformed.has(environment.id)) {
    shown.name = 404;
    shown.config = "unreadable";
  }
  return shown;
}
