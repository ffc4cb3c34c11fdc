import type { LeasekeeperConfig } from "../config/load.js";
import { closeSources, createSources, type LeaseSource } from "../leases/index.js";

/**
 * The lease sources main reads one row at a time from: the action engine's re-read before it acts, and
 * a lease's detail or a repair that needs a row's whole metadata. Built once per config (settings can
 * change it while the app runs) and shared by all of them; the scan reads its own in the inventory worker.
 */
export class ConfiguredSources {
  readonly #config: () => LeasekeeperConfig;
  readonly #options: { env: NodeJS.ProcessEnv; fetch?: typeof fetch };
  #builtFor: LeasekeeperConfig | null = null;
  #sources: LeaseSource[] = [];
  /** Every source built, so each pool is ended on close (a re-read may still hold one replaced since). */
  readonly #built: LeaseSource[] = [];

  constructor(config: () => LeasekeeperConfig, options: { env: NodeJS.ProcessEnv; fetch?: typeof fetch }) {
    this.#config = config;
    this.#options = options;
  }

  /** The sources of the current config; throws the source's error when one cannot be built (a variable unset). */
  current(): readonly LeaseSource[] {
    const config = this.#config();
    if (this.#builtFor !== config) {
      this.#sources = createSources(config, this.#options);
      this.#built.push(...this.#sources);
      this.#builtFor = config;
    }
    return this.#sources;
  }

  find(sourceId: string): LeaseSource | undefined {
    return this.current().find((source) => source.id === sourceId);
  }

  async close(): Promise<void> {
    await closeSources(this.#built);
  }
}
