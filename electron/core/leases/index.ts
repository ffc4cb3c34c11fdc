import type { LeasekeeperConfig } from "../config/load.js";
import { LedgerSource } from "./ledger.js";
import { PaperclipSource } from "./paperclip.js";
import { PaperclipDbSource } from "./paperclip-db.js";
import { type LeaseSource, SourceError } from "./source.js";

export { LedgerSource } from "./ledger.js";
export { PaperclipSource, type PaperclipSourceOptions } from "./paperclip.js";
export {
  type PaperclipDbSnapshot,
  PaperclipDbSource,
  type PaperclipDbSourceOptions,
} from "./paperclip-db.js";
export { withoutSecrets } from "./rows.js";
export { closeSources, isValidRowId, type LeaseSource, SourceError } from "./source.js";
export type { ReadSince, SourceRead, SourceReadEnd } from "./source-read.js";
export { snapshotOf } from "./source-snapshot.js";

/**
 * One source per config entry. Paperclip tokens and database URLs are read from the variables the config
 * names; a named variable that is unset is an error here rather than a puzzling HTTP 401 later.
 */
export function createSources(
  config: LeasekeeperConfig,
  options: { env?: NodeJS.ProcessEnv; fetch?: typeof fetch } = {},
): LeaseSource[] {
  const env = options.env ?? process.env;
  return config.sources.map((source) => {
    if (source.kind === "ledger") return new LedgerSource({ id: source.id, path: source.path });
    if (source.kind === "paperclip-db") {
      const url = env[source.urlEnv]?.trim();
      if (!url)
        throw new SourceError(
          source.id,
          "not-configured",
          `the Paperclip database variable ${source.urlEnv} is not set.`,
        );
      return new PaperclipDbSource({ id: source.id, url, timeoutMs: config.requestTimeoutMs });
    }
    const token = source.tokenEnv === null ? null : env[source.tokenEnv]?.trim() || null;
    if (source.tokenEnv !== null && token === null) {
      throw new SourceError(
        source.id,
        "not-configured",
        `the Paperclip token variable ${source.tokenEnv} is not set.`,
      );
    }
    return new PaperclipSource({
      id: source.id,
      url: source.url,
      token,
      timeoutMs: config.requestTimeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  });
}
