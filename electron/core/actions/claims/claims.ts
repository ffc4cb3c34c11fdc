/**
 * One action per sandbox, across every process that shares a store (the app, a second app on the same
 * data directory, `leasekeeper apply` beside them). A claim names a sandbox at an origin (ids are unique
 * per origin), its owner (one engine) and the job it acts for; it is taken before the last-moment
 * re-check and released when the item ends. It expires unless its owner renews it, so the claims of a
 * process that died lapse by themselves instead of locking their sandboxes forever.
 *
 * This is the whole contract a store has to keep: the SQLite store keeps it in `sqlite-claims.ts`, the
 * PostgreSQL store a team shares in `store/postgres/pg-claims.ts`. Every call answers asynchronously, as a
 * store across the network must.
 */

export interface SandboxRef {
  origin: string;
  sandboxId: string;
}

export interface ClaimHolder {
  /** The engine instance that holds it: renewed together, released together. */
  owner: string;
  jobId: string;
}

export interface HeldClaim extends SandboxRef, ClaimHolder {
  claimedAt: string;
  expiresAt: string;
}

export interface SandboxClaims {
  /**
   * Takes, atomically, every claim among `sandboxes` that is free, lapsed, or already this holder's, and
   * returns the keys (`claimKey`) of those now held. A claim held by anyone else, unexpired, is left alone,
   * except one held by a job in `succeeds`: the jobs this one continues, known to run no more (a resume
   * takes over what its interrupted jobs held when they died, without waiting for the claims to lapse).
   */
  claim(
    sandboxes: readonly SandboxRef[],
    holder: ClaimHolder,
    now: Date,
    ttlMs: number,
    succeeds?: readonly string[],
  ): Promise<Set<string>>;
  /** Frees the claim, only if `holder` holds it. */
  release(sandbox: SandboxRef, holder: ClaimHolder): Promise<void>;
  /** Pushes back the expiry of every claim `owner` holds. */
  renew(owner: string, now: Date, ttlMs: number): Promise<void>;
  /** Frees every claim `owner` holds (the engine is closing). */
  releaseOwner(owner: string): Promise<void>;
  /** Who holds the sandbox now, expired or not; null when nobody does. */
  holderOf(sandbox: SandboxRef): Promise<HeldClaim | null>;
}

export function claimKey(sandbox: SandboxRef): string {
  return `${sandbox.origin}\u0000${sandbox.sandboxId}`;
}
