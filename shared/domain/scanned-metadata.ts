import { ownershipMetadata, recorded } from "./lease-metadata.js";

/**
 * What Paperclip's host and the CreateOS plugin record in a lease's metadata for their own use: the
 * host's plugin and workspace bookkeeping and its reuse fingerprint, the plugin's shell and working
 * folder. They are most of a row's metadata, and no verdict, flag, explanation, forced-destroy reason,
 * table column or plan fingerprint reads them; a lease's detail and a repair do, and read the row whole.
 * `electron/core/inventory/scanned-metadata.test.ts` holds every judgement of a generated world and of the hostile rows to being
 * the same with and without them.
 */
export const HOST_BOOKKEEPING_KEYS: readonly string[] = [
  "agentId",
  "driver",
  "executionWorkspaceMode",
  "pluginId",
  "pluginKey",
  "sandboxProviderPlugin",
  "reusableSandboxLease",
  "remoteCwd",
  "shellCommand",
];

/**
 * Whether a scan may leave keys out of this metadata: the plugin's own shape, a plain object naming an
 * owner. Anything else (nothing, a string, a list, another schema's object) is read whole, since what it
 * holds instead is what an operator is shown of it.
 */
export function isTrimmableMetadata(value: unknown): boolean {
  return ownershipMetadata(value) !== null;
}

/**
 * The keys a scan leaves out: the host's bookkeeping, less any that an environment's config sets (the
 * drift check compares a lease's recorded config against every key its environment's config sets).
 */
export function keysLeftOutOfScan(configKeys: Iterable<string>): string[] {
  const kept = new Set(configKeys);
  return HOST_BOOKKEEPING_KEYS.filter((key) => !kept.has(key));
}

/**
 * The metadata as a scan reads it: the plugin's shape without `leftOut`, anything else as it is.
 * Paperclip's database source asks the server for exactly this; here it is the rule that answer is held
 * to, and (without all of the host's bookkeeping) what a plan fingerprints, so a row fingerprints alike
 * whether a scan read it or it was read whole by id.
 */
export function scannedMetadata<T>(value: T, leftOut: readonly string[]): T {
  if (!isTrimmableMetadata(value)) return value;
  const source = value as Record<string, unknown>;
  const trimmed: Record<string, unknown> = {};
  let changed = false;
  for (const key of Object.keys(source)) {
    if (leftOut.includes(key)) {
      changed = true;
      continue;
    }
    // defineProperty, not assignment: a recorded "__proto__" key stays a plain data property.
    Object.defineProperty(trimmed, key, {
      value: recorded(source as never, key),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return changed ? (trimmed as T) : value;
}
