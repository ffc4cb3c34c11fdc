import type { FleetInput } from "../fleet.js";
import { seededRandom } from "../random.js";
import { DemoBuilder } from "./builder.js";
import { type DemoEnvironment, makeAccounts, makeCompanies, makeEnvironments, uuid } from "./identities.js";
import type { Ledger, LedgerLease } from "./ledger.js";
import {
  PLANTERS,
  plantOwnedPausedWarm,
  plantOwnedRunning,
  plantUntracked,
  SCENARIOS,
  type Scenario,
} from "./scenarios.js";

// A whole demo world from a size and a seed: the simulator's fleet, Paperclip's ledger, the
// console's config and the keys it names. Pure and deterministic: the same options give the same
// bytes, which is what lets tests and screenshots depend on it.

export { SCENARIOS, type Scenario } from "./scenarios.js";

export interface DemoWorldOptions {
  /** Number of lease rows, 50 to 100,000. */
  size: number;
  seed: number | string;
  /** Default max(4, round(size / 200)), at most 50. */
  environments?: number;
  /** CreateOS accounts (keys); default 2, at least 2. */
  accounts?: number;
  /** Where environments point now. Default http://127.0.0.1:4510. */
  apiUrl?: string;
  /** Where they pointed before the move; api-url-changed rows still record it. Default http://127.0.0.1:4511. */
  legacyApiUrl?: string;
  /** The world's "now". Default 2026-11-30T12:00:00Z. */
  now?: string;
}

export interface DemoConfig {
  sources: { kind: "ledger"; path: string }[];
  /** Keys by environment-variable name only; the config never holds one. */
  credentials: { name: string; origin: string; apiKeyEnv: string }[];
  dataDir: string;
}

export interface DemoWorld {
  fleet: FleetInput;
  ledger: Ledger;
  config: DemoConfig;
  /** Environment variable name → API key, for the accounts the config names. */
  keys: Record<string, string>;
  /** Scenario → the lease ids planted for it (sandbox ids for `untracked`). */
  planted: Record<Scenario, string[]>;
}

export const DEFAULT_API_URL = "http://127.0.0.1:4510";
export const DEFAULT_LEGACY_API_URL = "http://127.0.0.1:4511";
export const DEFAULT_NOW = "2026-11-30T12:00:00Z";
const MIN_SIZE = 50;
const MAX_SIZE = 100_000;
const MIN_PLANTED = 3;

export function generateDemoWorld(options: DemoWorldOptions): DemoWorld {
  const settings = checkOptions(options);
  const random = seededRandom(options.seed);
  const companies = makeCompanies(random, Math.min(12, Math.max(3, Math.round(settings.environments / 3))));
  const accounts = makeAccounts(random, settings.accounts);
  const environments = makeEnvironments(random, settings.environments, companies, accounts, settings.apiUrl);
  const b = new DemoBuilder(random, settings.nowMs, settings.apiUrl, settings.legacyApiUrl, uuid(random));

  // Scenarios go to active, reusable environments, neighbours first, so each scenario's rows land
  // in different environments, companies and accounts.
  const plantable = environments.filter((env) => env.row.status === "active" && env.row.config.reuseLease);
  PLANTERS.forEach((planter, s) => {
    const count = Math.max(MIN_PLANTED, Math.round(settings.size * planter.weight));
    for (let n = 0; n < count; n++) {
      const env = plantable[(s * 3 + n) % plantable.length] as DemoEnvironment;
      planter.plant({ b, env, n, companies, environments });
    }
  });
  if (b.leases.length > settings.size) {
    throw new Error(
      `a world of ${settings.size} leases cannot hold every scenario (${b.leases.length} rows needed)`,
    );
  }

  // The rest are healthy: half held by a run right now, half released and kept warm.
  const active = environments.filter((env) => env.row.status === "active");
  const warm = environments.filter((env) => env.row.config.reuseLease);
  for (let i = 0; b.leases.length < settings.size; i++) {
    if (i % 2 === 0) plantOwnedRunning({ b, env: active[(i / 2) % active.length] as DemoEnvironment });
    else plantOwnedPausedWarm({ b, env: warm[((i - 1) / 2) % warm.length] as DemoEnvironment });
  }

  const rowsById = new Map(b.leases.map((row) => [row.id, row]));
  overlay(
    b,
    "unknown-status",
    rowsById,
    ["foreign-company", "foreign-environment", "not-visible"],
    (row, n) => {
      // Forks write statuses the upstream enum lacks; an older host throws on them.
      row.status = n % 2 ? "pending" : "paused";
    },
  );
  overlay(b, "unknown-policy", rowsById, ["owned-running"], (row, n) => {
    row.leasePolicy = n % 2 ? "keep_warm" : "reuse_by_agent";
  });
  const untracked = Math.max(2 * accounts.length, Math.round(settings.size * 0.02));
  for (let n = 0; n < untracked; n++)
    plantUntracked(b, accounts[n % accounts.length] as DemoEnvironment["account"], n);

  const planted = Object.fromEntries(SCENARIOS.map((scenario) => [scenario, b.planted.get(scenario) ?? []]));
  for (const scenario of SCENARIOS) {
    if ((planted[scenario]?.length ?? 0) < MIN_PLANTED)
      throw new Error(`scenario ${scenario} was planted too rarely`);
  }

  const origins = [
    { origin: new URL(settings.apiUrl).origin, label: "" },
    { origin: new URL(settings.legacyApiUrl).origin, label: " (legacy URL)" },
  ];
  return {
    fleet: {
      region: "eu",
      accounts: accounts.map((account) => ({
        apiKey: account.apiKey,
        userId: account.userId,
        // Sorted by id is sorted by creation: ids are ULIDs of the creation time.
        sandboxes: (b.sandboxes.get(account) ?? []).sort((x, y) => compare(x.id, y.id)),
      })),
    },
    ledger: {
      environments: environments.map((env) => env.row),
      leases: b.leases.sort((x, y) => compare(x.createdAt, y.createdAt) || compare(x.id, y.id)),
    },
    config: {
      sources: [{ kind: "ledger", path: "ledger.json" }],
      credentials: accounts.flatMap((account) =>
        origins.map(({ origin, label }) => ({
          name: `demo account ${account.index + 1}${label}`,
          origin,
          apiKeyEnv: account.keyEnv,
        })),
      ),
      dataDir: ".leasekeeper",
    },
    keys: Object.fromEntries(accounts.map((account) => [account.keyEnv, account.apiKey])),
    planted: planted as Record<Scenario, string[]>,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Gives a few rows already planted for `from` an odd value, spread evenly over them. */
function overlay(
  b: DemoBuilder,
  scenario: Scenario,
  rowsById: Map<string, LedgerLease>,
  from: Scenario[],
  change: (row: LedgerLease, n: number) => void,
): void {
  const candidates = from.flatMap((source) => b.planted.get(source) ?? []);
  const count = Math.min(candidates.length, Math.max(MIN_PLANTED, Math.round(rowsById.size * 0.003)));
  for (let n = 0; n < count; n++) {
    const id = candidates[Math.floor(((n + 0.5) * candidates.length) / count)] as string;
    change(rowsById.get(id) as LedgerLease, n);
    b.plant(scenario, id);
  }
}

function checkOptions(options: DemoWorldOptions) {
  const { size } = options;
  if (!Number.isInteger(size) || size < MIN_SIZE || size > MAX_SIZE) {
    throw new Error(`size must be a whole number from ${MIN_SIZE} to ${MAX_SIZE}, got ${size}`);
  }
  const environments = options.environments ?? Math.min(50, Math.max(4, Math.round(size / 200)));
  if (!Number.isInteger(environments) || environments < 3 || environments > 500) {
    throw new Error(`environments must be a whole number from 3 to 500, got ${environments}`);
  }
  const accounts = options.accounts ?? 2;
  if (!Number.isInteger(accounts) || accounts < 2 || accounts > 20) {
    throw new Error(`accounts must be a whole number from 2 to 20, got ${accounts}`);
  }
  const apiUrl = httpOrigin("apiUrl", options.apiUrl ?? DEFAULT_API_URL);
  const legacyApiUrl = httpOrigin("legacyApiUrl", options.legacyApiUrl ?? DEFAULT_LEGACY_API_URL);
  if (apiUrl === legacyApiUrl) throw new Error("apiUrl and legacyApiUrl must be different origins");
  const nowMs = Date.parse(options.now ?? DEFAULT_NOW);
  if (Number.isNaN(nowMs)) throw new Error(`now must be an ISO timestamp, got ${options.now}`);
  return { size, environments, accounts, apiUrl, legacyApiUrl, nowMs };
}

/** Environments store a normalised origin (the plugin keeps only `url.origin`). */
function httpOrigin(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} is not a URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`${name} must be http(s): ${raw}`);
  return url.origin;
}
