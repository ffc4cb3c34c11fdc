import {
  ACTION_KINDS,
  DESTROY_CONFIRMATIONS,
  HEADLINES,
  type Headline,
  KNOWN_LEASE_POLICIES,
  KNOWN_LEASE_STATUSES,
  OWNERSHIP_CODES,
  PROVIDER_CODES,
  ROW_FLAGS,
} from "../domain/codes.js";
import type { ClassifiedLease, EnvironmentSummary, Inventory } from "../domain/inventory.js";
import { UNKNOWN_REASONS } from "../domain/inventory.js";
import type { Environment } from "../domain/paperclip.js";

/**
 * A synthetic inventory for contract tests and benchmarks: realistic id lengths (UUID lease ids,
 * `sb-` + ULID sandbox ids), every code represented, deterministic for a seed. Not a verdict oracle.
 */

function rng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

function subset<T>(random: () => number, values: readonly T[], max: number): T[] {
  return values.filter(() => random() < max / values.length);
}

function hex(random: () => number, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

function uuid(random: () => number): string {
  return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-a${hex(random, 3)}-${hex(random, 12)}`;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
function sandboxId(random: () => number): string {
  let out = "sb-";
  for (let i = 0; i < 26; i++) out += CROCKFORD[Math.floor(random() * 32)];
  return out;
}

export interface InventoryFixtureOptions {
  rows: number;
  environments?: number;
  seed?: number;
  /** Extra metadata merged into every lease row (e.g. a canary value). */
  metadata?: Record<string, unknown>;
}

export function makeInventoryFixture(options: InventoryFixtureOptions): Inventory {
  const random = rng(options.seed ?? 7);
  const environmentCount = options.environments ?? 50;
  const origins = [
    "https://api.createos.example",
    "https://legacy.createos.example",
    "http://127.0.0.1:4010",
  ];
  const credentials = ["primary", "legacy", "ops"];
  const companies = Array.from({ length: 5 }, () => uuid(random));
  const environments: Environment[] = Array.from({ length: environmentCount }, (_, at) => ({
    id: uuid(random),
    companyId: companies[at % companies.length]!,
    name: `Environment ${at + 1}`,
    driver: "sandbox",
    status: "active",
    config: {
      provider: "createos",
      apiUrl: origins[at % origins.length],
      shape: "s-2vcpu-4gb",
      reuseLease: at % 2 === 0,
    },
  }));
  const counts = new Map<string, Record<Headline, number>>();
  const base = Date.parse("2025-06-01T00:00:00Z");
  const leases: ClassifiedLease[] = [];
  for (let at = 0; at < options.rows; at++) {
    const orphan = at % 997 === 5;
    const environment = orphan ? null : environments[at % environments.length]!;
    const headline = pick(random, HEADLINES);
    const code = pick(random, PROVIDER_CODES);
    const origin = code === "unknown" && random() < 0.1 ? null : pick(random, origins);
    const acquired = base + Math.floor(random() * 90 * 86_400_000);
    const id = uuid(random);
    const sandbox = random() < 0.03 ? null : sandboxId(random);
    const envId = environment?.id ?? (random() < 0.5 ? null : uuid(random));
    const companyId = environment?.companyId ?? pick(random, companies);
    leases.push({
      sourceId: at % 13 === 0 ? "paperclip:https://paperclip.example" : "ledger:/data/ledger.json",
      environment,
      lease: {
        id,
        companyId,
        environmentId: envId,
        executionWorkspaceId: null,
        issueId: null,
        heartbeatRunId: random() < 0.3 ? uuid(random) : null,
        status: random() < 0.01 ? "paused-fork-status" : pick(random, KNOWN_LEASE_STATUSES),
        leasePolicy: pick(random, KNOWN_LEASE_POLICIES),
        provider: "createos",
        providerLeaseId: sandbox,
        acquiredAt: new Date(acquired).toISOString(),
        lastUsedAt: new Date(acquired + Math.floor(random() * 86_400_000)).toISOString(),
        expiresAt: null,
        releasedAt: null,
        failureReason: null,
        cleanupStatus: null,
        metadata: {
          provider: "createos",
          companyId,
          environmentId: envId,
          apiUrl: origin,
          marker: uuid(random),
          ...options.metadata,
        },
        createdAt: null,
        updatedAt: null,
      },
      verdict: {
        ownership: subset(random, OWNERSHIP_CODES, 1.5),
        provider: code,
        flags: subset(random, ROW_FLAGS, 1.2),
        headline,
        allowedActions: subset(random, ACTION_KINDS, 1),
        overridableActions: subset(random, ACTION_KINDS, 0.5),
        destroyConfirmation: random() < 0.4 ? null : pick(random, DESTROY_CONFIRMATIONS),
        refusals: {},
      },
      provider: {
        code,
        origin,
        originFrom: origin ? "lease-metadata" : "none",
        credential: origin ? pick(random, credentials) : null,
        observedAt: origin ? new Date(base).toISOString() : null,
        rawStatus: code === "unknown" ? null : code,
        unknownReason: code === "unknown" ? pick(random, UNKNOWN_REASONS) : null,
        sandbox: null,
      },
      sharedWith: random() < 0.02 ? [uuid(random)] : [],
    });
    if (environment) {
      const key = environment.id;
      const tally = counts.get(key) ?? { closed: 0, foreign: 0, stale: 0, leaking: 0, unknown: 0, ok: 0 };
      tally[headline] += 1;
      counts.set(key, tally);
    }
  }
  const summaries: EnvironmentSummary[] = environments.map((environment) => ({
    sourceId: "ledger:/data/ledger.json",
    environmentId: environment.id,
    companyId: environment.companyId,
    name: environment.name,
    counts: counts.get(environment.id) ?? { closed: 0, foreign: 0, stale: 0, leaking: 0, unknown: 0, ok: 0 },
  }));
  // Rows listed under the paperclip source need their own environment summaries too.
  for (const lease of leases) {
    if (lease.environment && lease.sourceId !== "ledger:/data/ledger.json") {
      const exists = summaries.some(
        (summary) => summary.sourceId === lease.sourceId && summary.environmentId === lease.environment!.id,
      );
      if (!exists) {
        summaries.push({
          sourceId: lease.sourceId,
          environmentId: lease.environment.id,
          companyId: lease.environment.companyId,
          name: lease.environment.name,
          counts: { closed: 0, foreign: 0, stale: 0, leaking: 0, unknown: 0, ok: 0 },
        });
      }
    }
  }
  return {
    generatedAt: new Date(base + 90 * 86_400_000).toISOString(),
    requests: Math.ceil(options.rows / 500) * credentials.length,
    environments: summaries,
    leases,
    untracked: Array.from({ length: 25 }, (_, at) => ({
      sandboxId: sandboxId(random),
      origin: origins[at % origins.length]!,
      credential: credentials[at % credentials.length]!,
      status: "running",
      sandbox: { id: "x", status: "running" },
    })),
    untrackedUncertain: [],
    companies: [],
    gaps: [],
    problems: [
      { source: "ledger:/data/ledger.json", index: 3, message: "leases[3].acquiredAt: must be an ISO date" },
    ],
    origins: origins.map((origin, at) => ({
      origin,
      credential: credentials[at]!,
      ok: at !== 2,
      reason: at === 2 ? "network" : null,
      httpStatus: null,
      sandboxCount: 100,
    })),
  };
}
