import type { FleetInput } from "../fleet.js";
import { seededRandom } from "../random.js";
import { DemoBuilder, iso } from "./builder.js";
import { HISTORY_KINDS, type HistoryKind, plantHistory } from "./history.js";
import {
  type Company,
  type DemoEnvironment,
  makeAccounts,
  makeCompanies,
  makeEnvironments,
  uuid,
} from "./identities.js";
import type { Ledger, LedgerLease } from "./ledger.js";
import { type DemoHistoryStream, longLivedHistory } from "./long-lived.js";
import {
  PLANTERS,
  type Planter,
  plantOwnedPausedWarm,
  plantOwnedRunning,
  plantUntracked,
  SCENARIOS,
  type Scenario,
} from "./scenarios.js";

// A whole demo world from a size and a seed: the simulator's fleet, Paperclip's ledger, the
// console's config and the keys it names. Pure and deterministic: the same options give the same
// bytes, which is what lets tests and screenshots depend on it.

export { HISTORY_KINDS, type HistoryKind } from "./history.js";
export { type DemoHistoryChunk, type DemoHistoryStream, HISTORY_CHUNK_ROWS } from "./long-lived.js";
export { SCENARIOS, type Scenario } from "./scenarios.js";

export interface DemoWorldOptions {
  /** Number of lease rows, 60 to 100,000 (to 1,000,000 with `liveRows`). */
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
  /**
   * `company-scoped` (default): every environment names its company, as older Paperclip did.
   * `instance-scoped`: as current Paperclip, environments carry no company and are shared, so rows of
   * several companies sit under each one (each row's metadata naming its own company).
   */
  environmentShape?: "company-scoped" | "instance-scoped";
  /** Share of the rows that are history (leases long over), 0 to 0.9. Default 0. */
  historyShare?: number;
  /**
   * A long-lived instance: the world is `liveRows` rows made as a world of that size is (every scenario,
   * healthy rows, no history), and the other `size − liveRows` rows are history that `historyStream`
   * makes a chunk at a time, never all at once; neither `ledger.leases` nor `fleet` holds them (each
   * chunk brings the sandboxes CreateOS still lists for it). `historyShare`, if given, must agree:
   * `{ size: 1_000_000, liveRows: 50_000, historyShare: 0.95 }`. Default: none, every row in the world.
   */
  liveRows?: number;
  /** When given, the config reads leases from a Paperclip instance here instead of the ledger file. */
  paperclipUrl?: string;
}

/** Current Paperclip after months of use: environments shared by companies, most rows leases that are over. */
export const REALISTIC_WORLD = { environmentShape: "instance-scoped", historyShare: 0.6 } as const;

/** The variable the demo config names for the Paperclip board API key. */
export const DEMO_PAPERCLIP_TOKEN_ENV = "LEASEKEEPER_DEMO_PAPERCLIP_TOKEN";

export type DemoSource =
  | { kind: "ledger"; path: string }
  | { kind: "paperclip"; url: string; tokenEnv: string; name: string };

export interface DemoConfig {
  sources: DemoSource[];
  /** Keys by environment-variable name only; the config never holds one. */
  credentials: { name: string; origin: string; apiKeyEnv: string }[];
  dataDir: string;
  /** The janitor's policy file beside the config (scripts/demo.ts writes one), for the Janitor view. */
  policyFile?: string;
}

export interface DemoWorld {
  fleet: FleetInput;
  ledger: Ledger;
  config: DemoConfig;
  /** Environment variable name → API key, for the accounts the config names. */
  keys: Record<string, string>;
  /** Scenario → the lease ids planted for it (sandbox ids for `untracked`). */
  planted: Record<Scenario, string[]>;
  /** History kind → the lease ids of rows that are over. */
  history: Record<HistoryKind, string[]>;
  companies: { id: string; name: string }[];
  /** The same rows as a Paperclip instance holds them, for the Paperclip stand-in to serve. */
  paperclip: DemoPaperclipWorld;
  /** With `liveRows` only: the history rows beyond `ledger.leases`, a chunk at a time. */
  historyStream?: DemoHistoryStream;
}

export interface DemoPaperclipWorld {
  environmentShape: "company-scoped" | "instance-scoped";
  companies: Record<string, unknown>[];
  environments: Record<string, unknown>[];
  leases: LedgerLease[];
}

export const DEFAULT_API_URL = "http://127.0.0.1:4510";
export const DEFAULT_LEGACY_API_URL = "http://127.0.0.1:4511";
export const DEFAULT_NOW = "2026-11-30T12:00:00Z";
/** The fewest rows that hold every scenario at least MIN_PLANTED times, and the healthy cases too. */
const MIN_SIZE = 60;
const MAX_SIZE = 100_000;
/** The most rows a long-lived world (`liveRows`) holds, history included. */
const MAX_LONG_LIVED_SIZE = 1_000_000;
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
  const target = (planter: Planter) => Math.max(MIN_PLANTED, Math.round(settings.size * planter.weight));
  // Rows another planter plants for a scenario (every warm-expired row is leaking) count towards it.
  const plantedByOthers = (scenario: Scenario) =>
    PLANTERS.filter((other) => other.alsoPlants?.includes(scenario)).reduce(
      (sum, other) => sum + target(other),
      0,
    );
  PLANTERS.forEach((planter, s) => {
    const count = Math.max(0, target(planter) - plantedByOthers(planter.scenario));
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

  // On shared (instance-scoped) environments the rows that are not a planted case belong to every
  // company in turn; each row's metadata names its own company, as the plugin records it.
  const byCompany = (env: DemoEnvironment, i: number): DemoEnvironment =>
    settings.environmentShape === "instance-scoped"
      ? { ...env, company: companies[i % companies.length] as Company }
      : env;

  const history = Object.fromEntries(HISTORY_KINDS.map((kind) => [kind, [] as string[]])) as Record<
    HistoryKind,
    string[]
  >;
  // History never takes the last rows: the healthy cases are planted at least MIN_PLANTED times too.
  const historyRows = Math.max(
    0,
    Math.min(
      settings.size - b.leases.length - 2 * MIN_PLANTED,
      Math.round(settings.size * settings.historyShare),
    ),
  );
  for (let i = 0; i < historyRows; i++) {
    const kind = HISTORY_KINDS[i % HISTORY_KINDS.length] as HistoryKind;
    const env = environments[Math.floor(i / HISTORY_KINDS.length) % environments.length] as DemoEnvironment;
    history[kind].push(plantHistory(b, byCompany(env, i), kind).id);
  }

  // The rest are healthy: half held by a run right now, half released and kept warm.
  const active = environments.filter((env) => env.row.status === "active");
  const warm = environments.filter((env) => env.row.config.reuseLease);
  for (let i = 0; b.leases.length < settings.size; i++) {
    if (i % 2 === 0)
      plantOwnedRunning({ b, env: byCompany(active[(i / 2) % active.length] as DemoEnvironment, i >> 1) });
    else
      plantOwnedPausedWarm({
        b,
        env: byCompany(warm[((i - 1) / 2) % warm.length] as DemoEnvironment, (i + 1) >> 1),
      });
  }
  if (settings.environmentShape === "instance-scoped") {
    for (const env of environments) delete env.row.companyId;
  }

  const rowsById = new Map(b.leases.map((row) => [row.id, row]));
  // Rows a run holds keep their `active` status: the odd status goes on rows that are over.
  const held = new Set(b.planted.get("in-use") ?? []);
  overlay(
    b,
    "unknown-status",
    rowsById,
    ["foreign-company", "foreign-environment", "not-visible"],
    (row, n) => {
      // Forks write statuses the upstream enum lacks; an older host throws on them.
      row.status = n % 2 ? "pending" : "paused";
    },
    held,
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
  const leases = b.leases.sort((x, y) => compare(x.createdAt, y.createdAt) || compare(x.id, y.id));
  const ledgerEnvironments = environments.map((env) => env.row);
  const environmentsSince = iso(settings.nowMs - 180 * 86_400_000);
  const world: DemoWorld = {
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
      companies: companies.map(({ id, name }) => ({ id, name })),
      environments: ledgerEnvironments,
      leases,
    },
    config: {
      sources: options.paperclipUrl
        ? [
            {
              kind: "paperclip",
              url: httpOrigin("paperclipUrl", options.paperclipUrl),
              tokenEnv: DEMO_PAPERCLIP_TOKEN_ENV,
              name: "demo paperclip",
            },
          ]
        : [{ kind: "ledger", path: "ledger.json" }],
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
    history,
    companies: companies.map(({ id, name }) => ({ id, name })),
    paperclip: {
      environmentShape: settings.environmentShape,
      companies: companies.map(({ id, name, slug }) => ({
        id,
        name,
        description: null,
        status: "active",
        issuePrefix: slug.slice(0, 3).toUpperCase(),
        createdAt: environmentsSince,
        updatedAt: environmentsSince,
      })),
      environments: ledgerEnvironments.map((row) => ({
        ...row,
        description: null,
        envVars: {},
        metadata: null,
        createdAt: environmentsSince,
        updatedAt: environmentsSince,
      })),
      leases,
    },
  };
  if (settings.historyRows > 0) {
    world.historyStream = longLivedHistory({
      rows: settings.historyRows,
      seed: options.seed,
      nowMs: settings.nowMs,
      apiUrl: settings.apiUrl,
      legacyApiUrl: settings.legacyApiUrl,
      pluginId: b.pluginId,
      companies,
      environments,
      environmentShape: settings.environmentShape,
    });
  }
  return world;
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
  except: ReadonlySet<string> = new Set(),
): void {
  const candidates = from.flatMap((source) => b.planted.get(source) ?? []).filter((id) => !except.has(id));
  const count = Math.min(candidates.length, Math.max(MIN_PLANTED, Math.round(rowsById.size * 0.003)));
  for (let n = 0; n < count; n++) {
    const id = candidates[Math.floor(((n + 0.5) * candidates.length) / count)] as string;
    change(rowsById.get(id) as LedgerLease, n);
    b.plant(scenario, id);
  }
}

function checkOptions(options: DemoWorldOptions) {
  if (options.liveRows !== undefined) return checkLongLivedOptions(options, options.liveRows);
  return { ...checkWorldOptions(options), historyRows: 0 };
}

/** The world proper is `liveRows` rows without history; the rest of `size` is streamed history. */
function checkLongLivedOptions(options: DemoWorldOptions, liveRows: number) {
  const { size } = options;
  if (!Number.isInteger(size) || size > MAX_LONG_LIVED_SIZE) {
    throw new Error(`size must be a whole number up to ${MAX_LONG_LIVED_SIZE} with liveRows, got ${size}`);
  }
  if (!Number.isInteger(liveRows) || liveRows < MIN_SIZE || liveRows > Math.min(MAX_SIZE, size)) {
    throw new Error(
      `liveRows must be a whole number from ${MIN_SIZE} to ${Math.min(MAX_SIZE, size)}, got ${liveRows}`,
    );
  }
  const historyRows = size - liveRows;
  if (options.historyShare !== undefined && Math.abs(options.historyShare * size - historyRows) >= 1) {
    throw new Error(
      `historyShare ${options.historyShare} does not agree with ${liveRows} live rows of ${size}`,
    );
  }
  const settings = checkWorldOptions({ ...options, size: liveRows, historyShare: 0, liveRows: undefined });
  return { ...settings, historyRows };
}

function checkWorldOptions(options: DemoWorldOptions) {
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
  const environmentShape = options.environmentShape ?? "company-scoped";
  if (environmentShape !== "company-scoped" && environmentShape !== "instance-scoped") {
    throw new Error(`environmentShape must be company-scoped or instance-scoped, got ${environmentShape}`);
  }
  const historyShare = options.historyShare ?? 0;
  if (!(historyShare >= 0 && historyShare <= 0.9)) {
    throw new Error(`historyShare must be a number from 0 to 0.9, got ${historyShare}`);
  }
  return { size, environments, accounts, apiUrl, legacyApiUrl, nowMs, environmentShape, historyShare };
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
