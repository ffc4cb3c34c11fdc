import type pg from "pg";
import type { MarkerProof } from "../../../../shared/domain/marker-proof.js";
import { proofKey } from "../../../../shared/domain/marker-proof.js";
import { inTransaction } from "../../postgres/borrowed-connection.js";
import { SCHEMA } from "./migrations.js";

/**
 * Marker proofs in the store a team shares, the same rows the SQLite store keeps (one per row or
 * sandbox, the latest read wins), so a proof one operator made is the evidence every machine shows. A
 * proof carries only the marker's first 8 characters.
 */
export class PgProofs {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async save(proofs: readonly MarkerProof[]): Promise<void> {
    if (proofs.length === 0) return;
    await inTransaction(this.#pool, async (client) => {
      for (const proof of proofs) {
        await client.query(
          `INSERT INTO ${SCHEMA}.marker_proofs (proof_key, read_at, proof) VALUES ($1, $2, $3)
           ON CONFLICT (proof_key) DO UPDATE SET read_at = excluded.read_at, proof = excluded.proof
           WHERE excluded.read_at >= ${SCHEMA}.marker_proofs.read_at`,
          [Buffer.from(proofKey(proof.subject)), proof.readAt, Buffer.from(JSON.stringify(proof))],
        );
      }
    });
  }

  async all(): Promise<MarkerProof[]> {
    const { rows } = await this.#pool.query<{ proof: Buffer }>(`SELECT proof FROM ${SCHEMA}.marker_proofs`);
    return rows.flatMap((row) => {
      try {
        const proof = JSON.parse(row.proof.toString("utf8")) as MarkerProof;
        // A prefix longer than 8 would be a whole marker: never handed on, whatever wrote it.
        return typeof proof.markerPrefix === "string" && proof.markerPrefix.length > 8 ? [] : [proof];
      } catch {
        return [];
      }
    });
  }
}
