import type { Database } from "better-sqlite3";
import { type ClaimHolder, claimKey, type HeldClaim, type SandboxClaims, type SandboxRef } from "./claims.js";

interface ClaimRecord {
  origin: string;
  sandbox_id: string;
  owner: string;
  job_id: string;
  claimed_at: string;
  expires_at: string;
}

interface QueuedRelease {
  sandbox: SandboxRef;
  holder: ClaimHolder;
  released: () => void;
  failed: (error: unknown) => void;
}

/**
 * Sandbox claims in the SQLite store (`sandbox_claims`). A batch is claimed in one IMMEDIATE transaction,
 * which takes the database's write lock before reading, so two processes can never both see a sandbox
 * free; the primary key (origin, sandbox) is the backstop.
 */
export class SqliteClaims implements SandboxClaims {
  readonly #db: Database;
  #releases: QueuedRelease[] = [];

  constructor(db: Database) {
    this.#db = db;
  }

  async claim(
    sandboxes: readonly SandboxRef[],
    holder: ClaimHolder,
    now: Date,
    ttlMs: number,
    succeeds: readonly string[] = [],
  ): Promise<Set<string>> {
    const predecessors = new Set(succeeds);
    const taken = new Set<string>();
    if (sandboxes.length === 0) return taken;
    const at = now.toISOString();
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    const select = this.#db.prepare("SELECT * FROM sandbox_claims WHERE origin = ? AND sandbox_id = ?");
    const upsert = this.#db.prepare(
      `INSERT INTO sandbox_claims (origin, sandbox_id, owner, job_id, claimed_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (origin, sandbox_id) DO UPDATE SET
         owner = excluded.owner, job_id = excluded.job_id,
         claimed_at = excluded.claimed_at, expires_at = excluded.expires_at`,
    );
    this.#db
      .transaction(() => {
        for (const sandbox of sandboxes) {
          const current = select.get(sandbox.origin, sandbox.sandboxId) as ClaimRecord | undefined;
          const mine = current?.owner === holder.owner && current.job_id === holder.jobId;
          const lapsed =
            current !== undefined &&
            (Date.parse(current.expires_at) <= now.getTime() || predecessors.has(current.job_id));
          if (current !== undefined && !mine && !lapsed) continue;
          upsert.run(sandbox.origin, sandbox.sandboxId, holder.owner, holder.jobId, at, expiresAt);
          taken.add(claimKey(sandbox));
        }
      })
      .immediate();
    return taken;
  }

  /**
   * Releases asked for in the same turn of the event loop share one transaction. A list pass ends dozens
   * of items at once, and on the engine's connection (synchronous=FULL) every commit is an fsync on the
   * thread that starts the job's requests.
   */
  release(sandbox: SandboxRef, holder: ClaimHolder): Promise<void> {
    return new Promise((released, failed) => {
      this.#releases.push({ sandbox, holder, released, failed });
      if (this.#releases.length === 1) setImmediate(() => this.#releaseQueued());
    });
  }

  #releaseQueued(): void {
    const batch = this.#releases;
    this.#releases = [];
    try {
      const remove = this.#db.prepare(
        "DELETE FROM sandbox_claims WHERE origin = ? AND sandbox_id = ? AND owner = ? AND job_id = ?",
      );
      this.#db.transaction(() => {
        for (const { sandbox, holder } of batch)
          remove.run(sandbox.origin, sandbox.sandboxId, holder.owner, holder.jobId);
      })();
    } catch (error) {
      for (const release of batch) release.failed(error);
      return;
    }
    for (const release of batch) release.released();
  }

  async renew(owner: string, now: Date, ttlMs: number): Promise<void> {
    this.#db
      .prepare("UPDATE sandbox_claims SET expires_at = ? WHERE owner = ?")
      .run(new Date(now.getTime() + ttlMs).toISOString(), owner);
  }

  async releaseOwner(owner: string): Promise<void> {
    this.#db.prepare("DELETE FROM sandbox_claims WHERE owner = ?").run(owner);
  }

  async holderOf(sandbox: SandboxRef): Promise<HeldClaim | null> {
    const row = this.#db
      .prepare("SELECT * FROM sandbox_claims WHERE origin = ? AND sandbox_id = ?")
      .get(sandbox.origin, sandbox.sandboxId) as ClaimRecord | undefined;
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
