import { isDeepStrictEqual } from "node:util";
import type { ClassifiedLease, Inventory, UntrackedSandbox } from "../../../shared/domain/inventory.js";
import {
  type MarkerIndex,
  type MarkerProof,
  type ProofSubject,
  proofKey,
} from "../../../shared/domain/marker-proof.js";
import { CoreError } from "../errors/core-error.js";
import type { StoredScan } from "../inventory/worker/ports.js";
import type { ProofStore } from "./proof-store.js";
import { withUnreadRows } from "./proof-unread-rows.js";
import { type OpenProverClient, proveMarkers } from "./prover.js";
import { leaseTarget, type ProveTarget, untrackedTarget } from "./targets.js";

export interface ProveRequest {
  leases: { leaseId: string; sourceId?: string | undefined }[];
  untracked: { sandboxId: string; origin?: string | undefined }[];
}

/**
 * The rows a proof reads first, and the stored scan they are of (null: an inventory never replaced), with
 * the parts of the sources that scan could not read.
 */
export interface ProofRows {
  inventory: Pick<Inventory, "leases" | "untracked" | "untrackedUncertain" | "gaps">;
  scan: StoredScan | null;
}

/**
 * What proofs read of the inventory (the scan's, never a second listing): the rows they are asked for,
 * and for each marker a read found, every row of the same inventory that records it, however many rows
 * there are.
 */
export interface MarkerInventory {
  /** The rows with these lease ids (others may come along), and the sandboxes no row names. */
  rowsToProve(leaseIds: readonly string[]): Promise<ProofRows>;
  /**
   * `buildMarkerIndex` over every row of `scan`, kept to these markers; null once the store no longer
   * holds `scan` (a rescan was flipped after the rows were read).
   */
  markerIndex(markers: readonly string[], scan: StoredScan | null): Promise<MarkerIndex | null>;
}

/**
 * A proof gives up once this many rescans have replaced the inventory under it. A rescan every few
 * minutes rarely lands inside one proof, and never three times by chance: then the inventory is being
 * replaced faster than a proof reads.
 */
const GIVE_UP_AFTER_RESCANS = 3;

function replacedWhileProving(): CoreError<"inventory"> {
  return new CoreError(
    "inventory",
    "replaced-while-proving",
    `The inventory was rescanned ${GIVE_UP_AFTER_RESCANS} times while these sandboxes were being proven; nothing was recorded. Prove them again.`,
  );
}

export interface MarkerServiceOptions {
  inventory: MarkerInventory;
  openClient: OpenProverClient;
  /** Where proofs outlive the process; without one they are kept in memory only. */
  store?: ProofStore | undefined;
  now?: () => Date;
}

/**
 * Proves whose sandboxes are whose, on demand, and keeps the latest proof per row and per untracked
 * sandbox, keyed by `proofKey` (in memory, and in the store when given one), so an inventory read or an action can attach the evidence.
 * Every row of every source feeds the marker index, so an orphan sandbox can be matched to a row that
 * lost its sandbox id, a row under another provider, or an orphan row of the database.
 */
export class MarkerService {
  readonly #options: MarkerServiceOptions;
  readonly #proofs = new Map<string, MarkerProof>();
  readonly #loaded: Promise<void>;

  constructor(options: MarkerServiceOptions) {
    this.#options = options;
    const kept = options.store?.all() ?? [];
    if (Array.isArray(kept)) {
      this.#keep(kept);
      this.#loaded = Promise.resolve();
    } else {
      // A store that answers later (the team's) adds its proofs when it does; one that cannot be read
      // leaves the proofs of this run only.
      this.#loaded = kept.then(
        (proofs) => this.#keep(proofs),
        () => undefined,
      );
    }
  }

  /** Resolves once the store's proofs are read (at once for the SQLite file). */
  loaded(): Promise<void> {
    return this.#loaded;
  }

  /** Keeps the latest proof per row or sandbox, whichever arrived first. */
  #keep(proofs: readonly MarkerProof[]): void {
    for (const proof of proofs) {
      const key = proofKey(proof.subject);
      const held = this.#proofs.get(key);
      if (held === undefined || held.readAt <= proof.readAt) this.#proofs.set(key, proof);
    }
  }

  async prove(request: ProveRequest, options: { signal?: AbortSignal } = {}): Promise<MarkerProof[]> {
    const proven = await this.#prove(
      request.leases.map((ref) => ref.leaseId),
      (inventory) => [
        ...request.leases.map((ref) => leaseTarget(findLease(inventory, ref))),
        ...request.untracked.map((ref) => untrackedTarget(findUntracked(inventory, ref))),
      ],
      (target) => target,
      options,
    );
    return proven.map(({ proof }) => proof);
  }

  /** Proves rows and hands back each proof with the row it was read for (what a repair needs). */
  async proveLeases(
    refs: ProveRequest["leases"],
    options: { signal?: AbortSignal } = {},
  ): Promise<{ classified: ClassifiedLease; proof: MarkerProof }[]> {
    const proven = await this.#prove(
      refs.map((ref) => ref.leaseId),
      (inventory) => refs.map((ref) => findLease(inventory, ref)),
      leaseTarget,
      options,
    );
    return proven.map(({ subject, proof }) => ({ classified: subject, proof }));
  }

  /**
   * Reads the rows, then the sandboxes, then the rows recording what the reads found, all of one
   * inventory. When a rescan replaced it in between, the rows are read again from the newer one: if
   * every sandbox and what its row records are as before, the reads stand and only the recorders are
   * read again; otherwise the sandboxes are read again too.
   */
  async #prove<S>(
    leaseIds: readonly string[],
    subjectsOf: (inventory: ProofRows["inventory"]) => S[],
    targetOf: (subject: S) => ProveTarget,
    options: { signal?: AbortSignal },
  ): Promise<{ subject: S; proof: MarkerProof }[]> {
    const inventory = this.#options.inventory;
    let rows = await inventory.rowsToProve(leaseIds);
    let subjects = subjectsOf(rows.inventory);
    let replacements = 0;
    for (;;) {
      const targets = subjects.map(targetOf);
      let readAgain = false;
      const proofs = await proveMarkers(
        targets,
        async (markers) => {
          for (;;) {
            const index = await inventory.markerIndex(markers, rows.scan);
            if (index !== null) return index;
            if (++replacements === GIVE_UP_AFTER_RESCANS) throw replacedWhileProving();
            rows = await inventory.rowsToProve(leaseIds);
            subjects = subjectsOf(rows.inventory);
            if (!isDeepStrictEqual(subjects.map(targetOf), targets)) {
              readAgain = true;
              return new Map();
            }
          }
        },
        {
          openClient: this.#options.openClient,
          ...(this.#options.now ? { now: this.#options.now } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      );
      if (readAgain) continue;
      const judged = withUnreadRows(proofs, rows.inventory.gaps);
      await this.#loaded;
      for (const proof of judged) this.#proofs.set(proofKey(proof.subject), proof);
      await this.#options.store?.save(judged);
      return judged.map((proof, index) => ({ subject: subjects[index]!, proof }));
    }
  }

  /** The latest proof for a row or an untracked sandbox, or null when it was never proven. */
  proofFor(subject: ProofSubject): MarkerProof | null {
    return this.#proofs.get(proofKey(subject)) ?? null;
  }

  /** The latest proof of every row and sandbox proven, for a plan that reads them against a store. */
  keptProofs(): MarkerProof[] {
    return [...this.#proofs.values()];
  }
}

function findLease(
  inventory: Pick<Inventory, "leases">,
  ref: ProveRequest["leases"][number],
): ClassifiedLease {
  const matches = inventory.leases.filter(
    (classified) =>
      classified.lease.id === ref.leaseId &&
      (ref.sourceId === undefined || classified.sourceId === ref.sourceId),
  );
  if (matches.length === 1) return matches[0]!;
  // A lease the rows read do not hold has its own code: where a part of a source was not read, the row
  // may be there, and a caller says so by the code, not by the sentence.
  if (matches.length === 0) {
    throw new CoreError(
      "inventory",
      "lease-not-found",
      `No lease ${ref.leaseId} in the current inventory; refresh and try again.`,
    );
  }
  throw new CoreError("call", "not-found", `Two sources list a lease ${ref.leaseId}; name its source.`);
}

function findUntracked(
  inventory: Pick<Inventory, "untracked" | "untrackedUncertain">,
  ref: ProveRequest["untracked"][number],
): UntrackedSandbox {
  const matches = [...inventory.untracked, ...inventory.untrackedUncertain].filter(
    (sandbox) =>
      sandbox.sandboxId === ref.sandboxId && (ref.origin === undefined || sandbox.origin === ref.origin),
  );
  if (matches.length === 1) return matches[0]!;
  throw new CoreError(
    "call",
    "not-found",
    matches.length === 0
      ? `No untracked sandbox ${ref.sandboxId} in the current inventory; refresh and try again.`
      : `Two origins list a sandbox ${ref.sandboxId}; name its origin.`,
  );
}
