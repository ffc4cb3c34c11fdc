import { encodeInventory, type InventoryView } from "../../../shared/contract.js";
import type { JobEvent } from "../../../shared/domain/actions.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import { CoreError, isCoreError } from "../errors/core-error.js";
import type { EventHub } from "../handlers/events.js";
import { LeasekeeperActions } from "../inventory/leasekeeper-actions.js";
import { scanInventory } from "../inventory/scan.js";
import { createSources, SourceError } from "../leases/index.js";
import type { InventoryStore } from "../store/inventory-store.js";
import type { Logger } from "./log.js";

export interface ScanContext {
  config: LeasekeeperConfig;
  secrets: SecretStore;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

export interface InventoryServiceOptions {
  context: () => ScanContext;
  store: InventoryStore | null;
  events: EventHub;
  log: Logger;
  now?: () => Date;
  /** Replaces the real scan (tests of the service's caching). */
  scan?: (context: ScanContext) => Promise<Inventory>;
}

const MESSAGE_LIMIT = 240;

/**
 * The last inventory, kept in memory and in the store: a host shows it at once and refreshes in the
 * background. Scans are single-flight (a second request joins the running scan), every finished scan
 * emits `inventory:changed`, and the compact view is encoded once per inventory, not once per request.
 */
export class InventoryService {
  readonly #options: InventoryServiceOptions;
  #inventory: Inventory | null = null;
  #fromStore = false;
  #view: InventoryView | null = null;
  #byId = new Map<string, ClassifiedLease>();
  #running: Promise<Inventory> | null = null;
  #lastRefreshAt: string | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  readonly #actedOn = new LeasekeeperActions();

  constructor(options: InventoryServiceOptions) {
    this.#options = options;
  }

  /** Shows the last stored inventory until the first scan of this run finishes. */
  loadStored(): void {
    try {
      const stored = this.#options.store?.loadLast();
      if (stored) {
        this.#accept(stored.inventory);
        this.#fromStore = true;
      }
    } catch (error) {
      this.#options.log.warn("the stored inventory could not be read; a fresh scan will replace it", error);
    }
  }

  get lastRefreshAt(): string | null {
    return this.#lastRefreshAt;
  }

  get refreshing(): boolean {
    return this.#running !== null;
  }

  get latest(): Inventory | null {
    return this.#inventory;
  }

  /** A scan now, or the one already running. */
  refresh(): Promise<Inventory> {
    this.#running ??= this.#scan().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** The inventory, scanning first when there is none from this run yet (a stored one is shown meanwhile). */
  async ensure(): Promise<Inventory> {
    if (this.#inventory === null) return this.refresh();
    if (this.#fromStore) void this.refresh().catch(() => undefined);
    return this.#inventory;
  }

  /** For the action engine: an inventory no older than `maxAgeMs`, scanning when the cached one is older. */
  async current({ maxAgeMs }: { maxAgeMs: number }): Promise<Inventory> {
    const inventory = this.#inventory;
    const now = (this.#options.now ?? (() => new Date()))().getTime();
    if (inventory && !this.#fromStore && now - Date.parse(inventory.generatedAt) <= maxAgeMs)
      return inventory;
    return this.refresh();
  }

  async view(request: {
    environmentId?: string | undefined;
    refresh?: boolean | undefined;
  }): Promise<InventoryView> {
    const inventory = request.refresh ? await this.refresh() : await this.ensure();
    if (request.environmentId !== undefined)
      return encodeInventory(inventory, { environmentId: request.environmentId });
    if (this.#view === null || this.#inventory !== inventory) return encodeInventory(inventory);
    return this.#view;
  }

  /** A lease of the current inventory; with a source id when two sources could share a lease id. */
  async find(
    leaseId: string,
    sourceId?: string,
  ): Promise<{ lease: ClassifiedLease; byId: ReadonlyMap<string, ClassifiedLease> }> {
    await this.ensure();
    const found =
      this.#byId.get(leaseKey(sourceId, leaseId)) ?? (sourceId ? undefined : this.#byId.get(leaseId));
    if (!found)
      throw new CoreError(
        "call",
        "not-found",
        "No lease with that id in the current inventory; refresh and try again.",
      );
    return { lease: found, byId: this.#byId };
  }

  /**
   * A job's progress: when an item confirms a destroy or a release (a pause or a delete), the rows naming
   * that sandbox see what was done, by whom and in which job at once, without waiting for the next scan
   * or for Paperclip to update its row, and the change is announced like a scan's.
   */
  noteJobEvent(event: JobEvent): void {
    if (event.type !== "item") return;
    const { item } = event;
    if (item.state !== "confirmed" || item.effect === null) return;
    if (item.origin === null || item.sandboxId === null) return;
    const at = item.finishedAt ?? this.#now().toISOString();
    const mark = {
      action: event.action,
      effect: item.effect,
      jobId: event.jobId,
      at,
      operator: event.operator,
    };
    if (!this.#actedOn.note(item.origin, item.sandboxId, mark)) return;
    const current = this.#inventory;
    if (current === null) return;
    const updated = this.#actedOn.apply(current, this.#now());
    if (updated === current) return;
    this.#accept(updated, { applyActions: false });
    this.#options.events.emit("inventory:changed", { generatedAt: updated.generatedAt });
  }

  #now(): Date {
    return (this.#options.now ?? (() => new Date()))();
  }

  startAutoRefresh(seconds: number): void {
    this.stopAutoRefresh();
    if (seconds <= 0) return;
    this.#timer = setInterval(() => {
      void this.refresh().catch(() => undefined);
    }, seconds * 1000);
    this.#timer.unref?.();
  }

  stopAutoRefresh(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  async #scan(): Promise<Inventory> {
    const context = this.#options.context();
    let inventory: Inventory;
    try {
      inventory = this.#options.scan
        ? await this.#options.scan(context)
        : await scanInventory({
            config: context.config,
            sources: createSources(context.config, {
              env: context.env,
              ...(context.fetch ? { fetch: context.fetch } : {}),
            }),
            secrets: context.secrets,
            ...(context.fetch ? { client: { fetch: context.fetch } } : {}),
          });
    } catch (error) {
      // Source and config errors are one line naming the source or file; they say what to fix.
      if (error instanceof SourceError || isCoreError(error, "config")) {
        this.#options.log.warn("scan failed", error.message);
        const message =
          error.message.length > MESSAGE_LIMIT ? `${error.message.slice(0, MESSAGE_LIMIT)}…` : error.message;
        throw new CoreError("call", "unavailable", `The scan could not read a lease source: ${message}`);
      }
      throw error;
    }
    this.#accept(inventory);
    this.#fromStore = false;
    this.#lastRefreshAt = inventory.generatedAt;
    this.#options.events.emit("inventory:changed", { generatedAt: inventory.generatedAt });
    // Kept for the next start in the background, in slices, after the inventory is shown; a newer scan
    // replaces one still waiting to be saved.
    this.#options.store?.saveInBackground(inventory).catch((error: unknown) => {
      this.#options.log.warn("the inventory could not be saved; it is still shown", error);
    });
    return this.#inventory ?? inventory;
  }

  #accept(received: Inventory, { applyActions = true } = {}): void {
    const inventory = applyActions ? this.#actedOn.apply(received, this.#now()) : received;
    const byId = new Map<string, ClassifiedLease>();
    for (const classified of inventory.leases) {
      byId.set(leaseKey(classified.sourceId, classified.lease.id), classified);
      if (!byId.has(classified.lease.id)) byId.set(classified.lease.id, classified);
    }
    this.#inventory = inventory;
    this.#byId = byId;
    this.#view = encodeInventory(inventory);
  }
}

function leaseKey(sourceId: string | undefined, leaseId: string): string {
  return sourceId === undefined ? leaseId : `${sourceId}\u0000${leaseId}`;
}
