import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow, SourceGap } from "../../../shared/domain/paperclip.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";
import type { LedgerSource } from "../leases/ledger.js";

/** A source's rows as a re-check looks them up: by id, and by the sandbox they record. */
export interface RowIndex {
  environments: ReadonlyMap<string, Environment>;
  /** The first row of each id, as a scan takes it. */
  rowsById: ReadonlyMap<string, LeaseRow>;
  rowsBySandbox: ReadonlyMap<string, readonly LeaseRow[]>;
  /** The parts of the source that could not be read: while there is one, no row's absence says anything. */
  gaps: readonly SourceGap[];
}

/** How long an index is kept after its last use: longer than a job's batches are apart. */
export const LEDGER_INDEX_KEEP_MS = 60_000;

interface Held {
  path: string;
  digest: string;
  index: RowIndex;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * A job re-reads its rows before every batch, and a ledger can only be re-read whole: parsed a token at
 * a time on the engine's thread, which at 6,000 requests a minute kept that thread from starting the
 * batch's requests on time. The index of the last read is kept while the file's bytes are the same ones
 * it was parsed from (a SHA-256 of the file, a small part of a parse), so a re-check never reads an
 * older file than the one on disk. It is let go a minute after its last use.
 */
export class LedgerIndexCache {
  readonly #held = new Map<string, Held>();
  readonly #keepMs: number;

  constructor(options: { keepMs?: number } = {}) {
    this.#keepMs = options.keepMs ?? LEDGER_INDEX_KEEP_MS;
  }

  /** The file's rows as they are now: the held index when the bytes are unchanged, else a new read. */
  async indexOf(source: LedgerSource): Promise<RowIndex> {
    const before = await fileDigest(source.path);
    const held = this.#held.get(source.id);
    if (held !== undefined && before !== null && held.digest === before && held.path === source.path) {
      this.#keep(source.id, held);
      return held.index;
    }
    this.#drop(source.id);
    const index = indexRows(await source.load());
    // Kept only when the file was the same bytes before and after the read that was parsed.
    const after = before === null ? null : await fileDigest(source.path);
    if (after !== null && after === before) {
      this.#keep(source.id, { path: source.path, digest: after, index });
    }
    return index;
  }

  #keep(id: string, held: Held): void {
    clearTimeout(held.timer);
    held.timer = setTimeout(() => this.#drop(id), this.#keepMs);
    held.timer.unref?.();
    this.#held.set(id, held);
  }

  #drop(id: string): void {
    const held = this.#held.get(id);
    if (held === undefined) return;
    clearTimeout(held.timer);
    this.#held.delete(id);
  }
}

export function indexRows(snapshot: SourceSnapshot): RowIndex {
  const rowsBySandbox = new Map<string, LeaseRow[]>();
  const rowsById = new Map<string, LeaseRow>();
  for (const row of snapshot.leases) {
    if (!rowsById.has(row.id)) rowsById.set(row.id, row);
    const sandboxId = recordedSandboxId(row);
    if (sandboxId === null) continue;
    const list = rowsBySandbox.get(sandboxId);
    if (list === undefined) rowsBySandbox.set(sandboxId, [row]);
    else list.push(row);
  }
  return {
    environments: new Map(snapshot.environments.map((environment) => [environment.id, environment])),
    rowsById,
    rowsBySandbox,
    gaps: snapshot.gaps,
  };
}

/** The SHA-256 of the file's bytes, read as a stream; null when it cannot be read (the parse says why). */
async function fileDigest(path: string): Promise<string | null> {
  const hash = createHash("sha256");
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch {
    return null;
  }
  return hash.digest("hex");
}
