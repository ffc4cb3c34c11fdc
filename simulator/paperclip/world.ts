// What a Paperclip instance holds, in the JSON shapes its REST API serves
// (`packages/shared/src/types/environment.ts`): companies, environments and `environment_leases` rows,
// dates as ISO strings. Rows are kept as given, extra fields and odd values included, because the
// stand-in's job is to serve what a real instance might, not to judge it.

export type JsonObject = Record<string, unknown>;

// Only `id` is required: the other fields are typed as Paperclip writes them, but a row may carry
// anything (a test serves malformed rows on purpose), so the routes read them as unknown.

export interface PaperclipCompany extends JsonObject {
  id: string;
  name?: unknown;
}

/** An environment; `companyId` names its owner in the older, company-scoped shape. */
export interface PaperclipEnvironment extends JsonObject {
  id: string;
  name?: unknown;
  driver?: unknown;
  status?: unknown;
  config?: unknown;
  companyId?: unknown;
  /** Lists are ordered by it, newest first; a row without one is ordered by `createdAt`. */
  updatedAt?: unknown;
  createdAt?: unknown;
}

/** A lease row. `environmentId` is null for an orphan `pending_cleanup` row whose environment was deleted. */
export interface PaperclipLease extends JsonObject {
  id: string;
  companyId?: unknown;
  environmentId?: unknown;
  status?: unknown;
  leasePolicy?: unknown;
  cleanupStatus?: unknown;
  lastUsedAt?: unknown;
  createdAt?: unknown;
}

/**
 * `instance-scoped`: current Paperclip. Environments carry no `companyId` and every company's list is
 * the same. `company-scoped`: older versions. Each environment carries its `companyId` and a company's
 * list holds only its own.
 */
export type EnvironmentShape = "instance-scoped" | "company-scoped";

export interface PaperclipWorld {
  environmentShape?: EnvironmentShape;
  companies: PaperclipCompany[];
  environments: PaperclipEnvironment[];
  leases: PaperclipLease[];
}

export class PaperclipWorldError extends Error {
  override readonly name = "PaperclipWorldError";
}

/** Checks only what the routes depend on (ids to find rows by) and copies, so later edits stay local. */
export function parseWorld(input: unknown): Required<PaperclipWorld> {
  if (!isObject(input)) throw new PaperclipWorldError("a Paperclip world must be a JSON object");
  const shape = input.environmentShape ?? "instance-scoped";
  if (shape !== "instance-scoped" && shape !== "company-scoped") {
    throw new PaperclipWorldError(
      `environmentShape must be "instance-scoped" or "company-scoped", got ${JSON.stringify(shape)}`,
    );
  }
  const list = (name: "companies" | "environments" | "leases") => {
    const value = input[name];
    if (!Array.isArray(value)) throw new PaperclipWorldError(`${name} must be an array`);
    const seen = new Set<string>();
    return value.map((item, index) => {
      if (!isObject(item) || typeof item.id !== "string" || item.id === "") {
        throw new PaperclipWorldError(`${name}[${index}] needs a string id`);
      }
      if (seen.has(item.id)) throw new PaperclipWorldError(`${name}[${index}].id repeats ${item.id}`);
      seen.add(item.id);
      return structuredClone(item);
    });
  };
  const environments = list("environments") as PaperclipEnvironment[];
  if (shape === "company-scoped") {
    environments.forEach((environment, index) => {
      if (typeof environment.companyId !== "string") {
        throw new PaperclipWorldError(`environments[${index}] needs a companyId in a company-scoped world`);
      }
    });
  }
  return {
    environmentShape: shape,
    companies: list("companies") as PaperclipCompany[],
    environments,
    leases: list("leases") as PaperclipLease[],
  };
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
