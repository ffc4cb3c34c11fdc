import type { ProviderSandbox } from "../../../../shared/domain/inventory.js";
import { type ProviderFailure, providerFailure } from "../errors.js";
import type { AccountClient } from "../ports.js";

/** What CreateOS said of one sandbox on one read. `absent`: not listed, or 404 to a GET. */
export type SandboxRead =
  | { kind: "listed"; sandbox: ProviderSandbox; observedAt: string }
  | { kind: "absent"; observedAt: string }
  | { kind: "failed"; failure: ProviderFailure };

export interface ListingSnapshot {
  sandboxes: ReadonlyMap<string, ProviderSandbox>;
  observedAt: string;
}

/**
 * Reads one account's sandboxes as cheaply as the question allows. CreateOS has no "get these ids"
 * call: a list pass costs ceil(sandboxes / 500) requests whatever is asked, a GET costs one per sandbox.
 * So a batch at least as large as a list pass is read with the list, anything smaller with GETs. Every
 * list pass is also offered to whoever is waiting to verify earlier actions on this account.
 */
export class AccountReader {
  readonly client: AccountClient;
  readonly #pageSize: number;
  #knownSize: number;
  #listeners: ((snapshot: ListingSnapshot) => void)[] = [];
  #listing: Promise<ListingSnapshot> | null = null;
  readonly #seenLive = new Set<string>();

  constructor(client: AccountClient, options: { pageSize: number; knownSize: number }) {
    this.client = client;
    this.#pageSize = options.pageSize;
    this.#knownSize = options.knownSize;
  }

  /** Requests one list pass costs now (from the last listing's size). */
  get listCost(): number {
    return Math.max(1, Math.ceil(this.#knownSize / this.#pageSize));
  }

  /** Whether this account listed the sandbox live (not destroyed or failed) during this job. */
  hasSeenLive(sandboxId: string): boolean {
    return this.#seenLive.has(sandboxId);
  }

  /** Carries over what an earlier run of the job saw: it sent a request only after listing the sandbox live. */
  markSeenLive(sandboxId: string): void {
    this.#seenLive.add(sandboxId);
  }

  #observe(sandbox: ProviderSandbox): void {
    if (sandbox.status !== "destroyed" && sandbox.status !== "failed") this.#seenLive.add(sandbox.id);
  }

  onListing(listener: (snapshot: ListingSnapshot) => void): void {
    this.#listeners.push(listener);
  }

  async readMany(sandboxIds: readonly string[]): Promise<Map<string, SandboxRead>> {
    const reads = new Map<string, SandboxRead>();
    if (sandboxIds.length === 0) return reads;
    if (sandboxIds.length >= this.listCost) {
      try {
        const snapshot = await this.list();
        for (const id of sandboxIds) reads.set(id, fromSnapshot(snapshot, id));
      } catch (error) {
        const failure = providerFailure(error);
        for (const id of sandboxIds) reads.set(id, { kind: "failed", failure });
      }
      return reads;
    }
    await Promise.all(
      sandboxIds.map(async (id) => {
        reads.set(id, await this.readOne(id));
      }),
    );
    return reads;
  }

  /**
   * As `readMany`, but each read is handed to `onRead` as it arrives: with a GET per sandbox, one that
   * answers early is not held back by the slowest.
   */
  async readEach(sandboxIds: readonly string[], onRead: (sandboxId: string, read: SandboxRead) => void) {
    if (sandboxIds.length === 0) return;
    if (sandboxIds.length >= this.listCost) {
      for (const [id, read] of await this.readMany(sandboxIds)) onRead(id, read);
      return;
    }
    await Promise.all(sandboxIds.map(async (id) => onRead(id, await this.readOne(id))));
  }

  async readOne(sandboxId: string): Promise<SandboxRead> {
    try {
      const sandbox = await this.client.getSandbox(sandboxId);
      const observedAt = new Date().toISOString();
      if (sandbox !== null) this.#observe(sandbox);
      return sandbox === null ? { kind: "absent", observedAt } : { kind: "listed", sandbox, observedAt };
    } catch (error) {
      return { kind: "failed", failure: providerFailure(error) };
    }
  }

  /** One list pass; concurrent callers share it. */
  list(): Promise<ListingSnapshot> {
    if (this.#listing !== null) return this.#listing;
    this.#listing = (async () => {
      try {
        const sandboxes = await this.client.listSandboxes();
        this.#knownSize = sandboxes.length;
        for (const sandbox of sandboxes) this.#observe(sandbox);
        const snapshot: ListingSnapshot = {
          sandboxes: new Map(sandboxes.map((sandbox) => [sandbox.id, sandbox])),
          observedAt: new Date().toISOString(),
        };
        for (const listener of this.#listeners) listener(snapshot);
        return snapshot;
      } finally {
        this.#listing = null;
      }
    })();
    return this.#listing;
  }
}

function fromSnapshot(snapshot: ListingSnapshot, sandboxId: string): SandboxRead {
  const sandbox = snapshot.sandboxes.get(sandboxId);
  return sandbox === undefined
    ? { kind: "absent", observedAt: snapshot.observedAt }
    : { kind: "listed", sandbox, observedAt: snapshot.observedAt };
}
