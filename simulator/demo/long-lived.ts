import type { FleetSandbox } from "../fleet.js";
import { seededRandom } from "../random.js";
import { DemoBuilder } from "./builder.js";
import { type HistoryKind, plantHistory } from "./history.js";
import type { Company, DemoEnvironment } from "./identities.js";
import type { LedgerLease } from "./ledger.js";
import { PLANTERS } from "./scenarios.js";

// The history of a long-lived instance (`liveRows`): hundreds of thousands of rows that are over, made a
// chunk at a time so that a million never sit in memory together. Most of their sandboxes are gone from
// CreateOS's listing (purged, or never recorded); a few recent ones are still listed `destroyed`, and a
// few released rows still have a running sandbox, which is what makes leaks.

/** Rows per chunk: fixed, so a world's rows do not depend on how its caller reads them. */
export const HISTORY_CHUNK_ROWS = 10_000;
/** One history row in LISTED_DESTROYED_EVERY has a sandbox CreateOS still lists as destroyed (two kinds). */
const LISTED_DESTROYED_EVERY = 100;
/** One history row in LEAKING_EVERY was released over a sandbox that still runs. */
const LEAKING_EVERY = 1_000;
const PURGED_KINDS: readonly HistoryKind[] = ["released-purged", "expired-unrecorded", "failed-purged"];

export interface DemoHistoryChunk {
  leases: LedgerLease[];
  /** The sandboxes CreateOS still lists for these rows, by account key (destroyed ones, leaking ones). */
  sandboxes: { apiKey: string; sandboxes: FleetSandbox[] }[];
}

export interface DemoHistoryStream {
  /** History rows in all, beyond the world's own (live) rows. */
  rows: number;
  /** The rows in chunks of HISTORY_CHUNK_ROWS (the last may be shorter); the same chunks on every call. */
  chunks(): Generator<DemoHistoryChunk>;
}

export interface LongLivedHistoryInput {
  rows: number;
  seed: number | string;
  nowMs: number;
  apiUrl: string;
  legacyApiUrl: string;
  pluginId: string;
  companies: readonly Company[];
  environments: readonly DemoEnvironment[];
  environmentShape: "company-scoped" | "instance-scoped";
}

export function longLivedHistory(input: LongLivedHistoryInput): DemoHistoryStream {
  const { companies, environments } = input;
  const leaking = PLANTERS.find((planter) => planter.scenario === "leaking");
  if (leaking === undefined) throw new Error("no leaking planter");
  const plantable = environments.filter((env) => env.row.status === "active" && env.row.config.reuseLease);
  const byCompany = (env: DemoEnvironment, i: number): DemoEnvironment =>
    input.environmentShape === "instance-scoped"
      ? { ...env, company: companies[i % companies.length] as Company }
      : env;
  function* chunks(): Generator<DemoHistoryChunk> {
    for (let start = 0, chunk = 0; start < input.rows; start += HISTORY_CHUNK_ROWS, chunk++) {
      const b = new DemoBuilder(
        seededRandom(`${input.seed}/history/${chunk}`),
        input.nowMs,
        input.apiUrl,
        input.legacyApiUrl,
        input.pluginId,
      );
      const end = Math.min(input.rows, start + HISTORY_CHUNK_ROWS);
      for (let i = start; i < end; i++) {
        if (i % LEAKING_EVERY === LEAKING_EVERY - 1 && plantable.length > 0) {
          const n = Math.floor(i / LEAKING_EVERY);
          leaking!.plant({ b, env: plantable[n % plantable.length]!, n, companies, environments });
          continue;
        }
        const env = byCompany(environments[Math.floor(i / 7) % environments.length]!, i);
        const kind: HistoryKind =
          i % LISTED_DESTROYED_EVERY === 0
            ? "released-destroyed"
            : i % LISTED_DESTROYED_EVERY === 1
              ? "expired-destroyed"
              : PURGED_KINDS[i % PURGED_KINDS.length]!;
        plantHistory(b, env, kind);
      }
      yield {
        leases: b.leases,
        sandboxes: [...b.sandboxes].map(([account, sandboxes]) => ({ apiKey: account.apiKey, sandboxes })),
      };
    }
  }
  return { rows: input.rows, chunks };
}
