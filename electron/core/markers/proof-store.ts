import type { Database } from "better-sqlite3";
import { type MarkerProof, proofKey } from "../../../shared/domain/marker-proof.js";

/**
 * Marker proofs kept beside the inventory cache, so a restart (or the next `leasekeeper scan`) still
 * shows the evidence an operator gathered. A proof carries only the marker's first 8 characters, so
 * nothing secret is at rest here. The latest proof per row or sandbox wins.
 */
export interface ProofStore {
  /** Done when the proofs are kept (a store a team shares answers later than the SQLite file). */
  save(proofs: readonly MarkerProof[]): void | Promise<void>;
  all(): MarkerProof[] | Promise<MarkerProof[]>;
}

export class SqliteProofStore implements ProofStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  save(proofs: readonly MarkerProof[]): void {
    const upsert = this.#db.prepare(
      `INSERT INTO marker_proofs (proof_key, read_at, proof) VALUES (?, ?, ?)
       ON CONFLICT (proof_key) DO UPDATE SET read_at = excluded.read_at, proof = excluded.proof
       WHERE excluded.read_at >= marker_proofs.read_at`,
    );
    this.#db.transaction(() => {
      for (const proof of proofs) upsert.run(proofKey(proof.subject), proof.readAt, JSON.stringify(proof));
    })();
  }

  all(): MarkerProof[] {
    const rows = this.#db.prepare("SELECT proof FROM marker_proofs").all() as { proof: string }[];
    return rows.flatMap((row) => {
      try {
        const proof = JSON.parse(row.proof) as MarkerProof;
        // A prefix longer than 8 would be a whole marker: never handed on, whatever wrote it.
        return typeof proof.markerPrefix === "string" && proof.markerPrefix.length > 8 ? [] : [proof];
      } catch {
        return [];
      }
    });
  }
}
