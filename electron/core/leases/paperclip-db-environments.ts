import type { Environment } from "../../../shared/domain/paperclip.js";
import { CREATEOS } from "./paperclip-db-queries.js";
import { type DatabaseLeaseRow, databaseRowEnvironmentId } from "./paperclip-db-rows.js";

/** Paperclip's environments as the database source reads them, and what they make of a lease row. */

type Row = Record<string, unknown>;

/** An environment row in Paperclip's JSON shape, before it is parsed. */
export function environmentFromRow(row: Row): unknown {
  return {
    id: row.id,
    companyId: row.company_id ?? null,
    name: row.name,
    driver: row.driver,
    status: row.status,
    config: row.config ?? {},
  };
}

export function isCreateosEnvironment(environment: Environment): boolean {
  return environment.driver === "sandbox" && environment.config.provider === CREATEOS;
}

/**
 * What became of a row's environment, when it is no longer the CreateOS environment the row was made in.
 * Nothing is said of one among `unread` (a row of `environments` that could not be parsed): it is there,
 * and what became of it is not known.
 */
export function environmentChange(
  row: DatabaseLeaseRow,
  environments: ReadonlyMap<string, Environment>,
  unread: ReadonlySet<string>,
): string | undefined {
  const environmentId = databaseRowEnvironmentId(row);
  if (environmentId === null) return "deleted";
  const environment = environments.get(environmentId);
  if (environment === undefined) return unread.has(environmentId) ? undefined : "deleted";
  if (isCreateosEnvironment(environment)) return undefined;
  if (environment.driver !== "sandbox") return `now ${environment.driver}`;
  return `now ${environment.config.provider ?? "sandbox"}`;
}

/** Every key an environment's config sets. */
export function configKeys(environments: ReadonlyMap<string, Environment>): Set<string> {
  const keys = new Set<string>();
  for (const environment of environments.values()) {
    for (const key of Object.keys(environment.config)) keys.add(key);
  }
  return keys;
}
