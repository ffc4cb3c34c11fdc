import type pg from "pg";
import {
  type ClaimHolder,
  claimKey,
  type HeldClaim,
  type SandboxClaims,
  type SandboxRef,
} from "../../actions/claims/claims.js";
import { SCHEMA } from "./migrations.js";

interface ClaimRecord {
  origin: string;
  sandbox_id: string;
  owner: string;
  job_id: string;
  claimed_at: string;
  expires_at: string;
}

/**
 * Sandbox claims in the shared PostgreSQL store. A batch is claimed by one INSERT … ON CONFLICT DO UPDATE
 * whose WHERE lets it overwrite only a claim that is this holder's, lapsed, or a predecessor job's: the
 * conflicting row is locked while that is decided, so of two processes claiming the same sandbox at once
 * exactly one gets it back in RETURNING, whichever machine it runs on.
 */
export class PgClaims implements SandboxClaims {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async claim(
    sandboxes: readonly SandboxRef[],
    holder: ClaimHolder,
    now: Date,
    ttlMs: number,
    succeeds: readonly string[] = [],
  ): Promise<Set<string>> {
    // One row per sandbox (a statement may not update a row twice), in one order for every process, so
    // two batches that overlap wait on each other's rows instead of deadlocking.
    const unique = [...new Map(sandboxes.map((sandbox) => [claimKey(sandbox), sandbox])).entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, sandbox]) => sandbox);
    if (unique.length === 0) return new Set();
    const at = now.toISOString();
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    const result = await this.#pool.query<{ origin: string; sandbox_id: string }>(
      `INSERT INTO ${SCHEMA}.sandbox_claims AS held (origin, sandbox_id, owner, job_id, claimed_at, expires_at)
       SELECT wanted.origin, wanted.sandbox_id, $3, $4, $5, $6
         FROM unnest($1::text[], $2::text[]) AS wanted (origin, sandbox_id)
       ON CONFLICT (origin, sandbox_id) DO UPDATE SET
         owner = excluded.owner, job_id = excluded.job_id,
         claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
       WHERE (held.owner = excluded.owner AND held.job_id = excluded.job_id)
          OR held.expires_at <= excluded.claimed_at
          OR held.job_id = ANY($7::text[])
       RETURNING origin, sandbox_id`,
      [
        unique.map((sandbox) => sandbox.origin),
        unique.map((sandbox) => sandbox.sandboxId),
        holder.owner,
        holder.jobId,
        at,
        expiresAt,
        [...succeeds],
      ],
    );
    return new Set(result.rows.map((row) => claimKey({ origin: row.origin, sandboxId: row.sandbox_id })));
  }

  async release(sandbox: SandboxRef, holder: ClaimHolder): Promise<void> {
    await this.#pool.query(
      `DELETE FROM ${SCHEMA}.sandbox_claims WHERE origin = $1 AND sandbox_id = $2 AND owner = $3 AND job_id = $4`,
      [sandbox.origin, sandbox.sandboxId, holder.owner, holder.jobId],
    );
  }

  async renew(owner: string, now: Date, ttlMs: number): Promise<void> {
    await this.#pool.query(`UPDATE ${SCHEMA}.sandbox_claims SET expires_at = $1 WHERE owner = $2`, [
      new Date(now.getTime() + ttlMs).toISOString(),
      owner,
    ]);
  }

  async releaseOwner(owner: string): Promise<void> {
    await this.#pool.query(`DELETE FROM ${SCHEMA}.sandbox_claims WHERE owner = $1`, [owner]);
  }

  async holderOf(sandbox: SandboxRef): Promise<HeldClaim | null> {
    const { rows } = await this.#pool.query<ClaimRecord>(
      `SELECT * FROM ${SCHEMA}.sandbox_claims WHERE origin = $1 AND sandbox_id = $2`,
      [sandbox.origin, sandbox.sandboxId],
    );
    const row = rows[0];
    return row === undefined
      ? null
      : {
          origin: row.origin,
          sandboxId: row.sandbox_id,
          owner: row.owner,
          jobId: row.job_id,
          claimedAt: row.claimed_at,
          expiresAt: row.expires_at,
        };
  }
}
