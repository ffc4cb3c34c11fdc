import { hash } from "node:crypto";
import type { SourceSnapshot } from "../../../../shared/domain/inventory.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { changedSinceFrom, needsFullPass } from "../../leases/changed-rows.js";
import { createSources, type LeaseSource } from "../../leases/index.js";

interface LastRead {
  /** The source's configuration and the address it read, as a fingerprint: another one reads afresh. */
  identity: string;
  snapshot: SourceSnapshot;
  lastFullPassAt: number;
  scansSinceFullPass: number;
}

/**
 * Each source's last snapshot, so the next scan reads only what changed since where a source can tell
 * (Paperclip's database: rows stamped after the last read's watermark), with a full pass now and then
 * to notice deleted rows. Unchanged rows come back as the very objects read last time, so the verdict
 * memo recognises them without a digest. Only snapshots this worker read itself are kept: a stored or
 * a team's inventory has its keys taken out, and rows built from it would not be what the source says.
 */
export class SourceReads {
  readonly #last = new Map<string, LastRead>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Reads every configured source; throws (synchronously) when a source cannot be set up. */
  load(config: LeasekeeperConfig, env: Record<string, string>): Promise<SourceSnapshot[]> {
    const sources = createSources(config, { env });
    return Promise.all(
      sources.map((source, at) => this.#loadOne(source, identityOf(config.sources[at], env))),
    );
  }

  /** Forgets every snapshot: the next scan reads every source whole. */
  clear(): void {
    this.#last.clear();
  }

  async #loadOne(source: LeaseSource, identity: string): Promise<SourceSnapshot> {
    const startedAt = this.#now();
    const last = this.#last.get(source.id);
    const previous = last?.identity === identity ? last : undefined;
    const fullPass =
      previous === undefined ||
      needsFullPass({
        lastFullPassAt: previous.lastFullPassAt,
        scansSinceFullPass: previous.scansSinceFullPass,
        now: startedAt,
      });
    const changedSince = changedSinceFrom(previous?.snapshot, fullPass);
    const snapshot = await source.load(changedSince === undefined ? {} : { changedSince });
    // A source that cannot read only what changed gains nothing from its last snapshot: letting it go
    // keeps the previous read's rows from living on beside the next.
    if (snapshot.readUpTo === undefined) {
      this.#last.delete(source.id);
      return snapshot;
    }
    const readWhole = snapshot.readUpTo.fullPass;
    this.#last.set(source.id, {
      identity,
      snapshot,
      lastFullPassAt: readWhole || previous === undefined ? startedAt : previous.lastFullPassAt,
      scansSinceFullPass: readWhole || previous === undefined ? 0 : previous.scansSinceFullPass + 1,
    });
    return snapshot;
  }
}

/** The source's entry and the value of each variable it names (a database URL), as a fingerprint. */
function identityOf(entry: LeasekeeperConfig["sources"][number] | undefined, env: Record<string, string>) {
  return hash("sha1", JSON.stringify([entry, env]), "base64");
}
