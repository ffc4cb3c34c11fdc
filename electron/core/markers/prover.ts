import {
  judgeMarker,
  type MarkerIndex,
  type MarkerProof,
  type MarkerReading,
  markersFound,
} from "../../../shared/domain/marker-proof.js";
import type { CreateosClient } from "../createos/client.js";
import { readMarker } from "./read-marker.js";
import type { ProveTarget } from "./targets.js";

/** A client for a configured credential, or null when it has no usable key. */
export type OpenProverClient = (credential: string) => Promise<CreateosClient | null>;

export interface ProveOptions {
  openClient: OpenProverClient;
  now?: () => Date;
  signal?: AbortSignal;
}

/**
 * Reads and judges every target's marker. Reads run side by side; the origin's queue spaces their
 * requests to the budget the scan also spends from, so proving a hundred sandboxes costs two hundred
 * paced requests and never a burst. One client per credential for the whole batch.
 */
export async function proveMarkers(
  targets: readonly ProveTarget[],
  /** The rows recording each of these markers, over every row: asked once, for what the reads found. */
  indexFor: (markers: readonly string[]) => Promise<MarkerIndex>,
  options: ProveOptions,
): Promise<MarkerProof[]> {
  const now = options.now ?? (() => new Date());
  const clients = new Map<string, Promise<CreateosClient | null>>();
  const clientFor = (credential: string) => {
    let client = clients.get(credential);
    if (client === undefined) {
      // A vault that cannot be read makes this account unreadable, not the whole batch.
      client = options.openClient(credential).catch(() => null);
      clients.set(credential, client);
    }
    return client;
  };

  const reads = await Promise.all(
    targets.map(async (target) => {
      const reading = await readTarget(target, clientFor, options.signal);
      return { target, reading, readAt: now().toISOString() };
    }),
  );
  // Judged once every read is in, against the rows that record what the reads found.
  const index = await indexFor(markersFound(reads.map(({ reading }) => reading)));
  return reads.map(
    ({ target, reading, readAt }): MarkerProof => ({
      subject: target.subject,
      sandboxId: target.judged.sandboxId,
      origin: target.origin,
      sandboxStatus: reading.sandboxStatus,
      readAt,
      ...judgeMarker(reading, target.judged, index),
    }),
  );
}

async function readTarget(
  target: ProveTarget,
  clientFor: (credential: string) => Promise<CreateosClient | null>,
  signal: AbortSignal | undefined,
): Promise<MarkerReading> {
  if ("unreadable" in target.access) {
    return { kind: "not-read", reason: target.access.unreadable, sandboxStatus: null };
  }
  const client = await clientFor(target.access.credential);
  const sandboxId = target.judged.sandboxId;
  if (client === null || sandboxId === null) {
    return {
      kind: "not-read",
      reason: client === null ? "no-credential" : "no-sandbox-id",
      sandboxStatus: null,
    };
  }
  return readMarker(client, sandboxId, signal ? { signal } : {});
}
