/**
 * Reading a lease's recorded metadata without trusting it. Metadata is whatever a Paperclip row or a
 * ledger file carried: null, a string, an array, another schema's object, or a hand-edited object with
 * `__proto__` keys, numbers where strings belong and 100 kB values. Every read checks `Object.hasOwn`
 * first, so an inherited key (`constructor`, `toString`, a polluted prototype) is never taken for a
 * recorded one; values are only ever inspected with `typeof`; nothing is ever written. Metadata is parsed
 * JSON, which has no accessors, so reading an own key cannot run code or throw.
 */

declare const leaseMetadataBrand: unique symbol;

/**
 * A lease's metadata once it is known to be a plain object. Branded so that the only way to read it is
 * `recorded` and its typed variants, never a property access.
 */
export type LeaseMetadata = { readonly [leaseMetadataBrand]: true };

/** The flat keys `metadataMatches` reads; metadata with none of them was written by another schema. */
export const OWNERSHIP_KEYS = ["provider", "companyId", "environmentId", "apiUrl"] as const;

/** The plugin's own marker check on resume: anything else makes the next resume expire the lease. */
export const MARKER_PATTERN = /^[0-9a-f-]{36}$/;

/**
 * The metadata as a plain object (prototype Object.prototype or null), or null for anything else: arrays,
 * dates and class instances all fail the prototype test.
 */
export function metadataObject(value: unknown): LeaseMetadata | null {
  if (typeof value !== "object" || value === null) return null;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return null;
  return value as LeaseMetadata;
}

/**
 * The metadata when the plugin's flat ownership keys can be read from it, or null (`metadata-missing`).
 * A key whose value is null counts as absent: it names no owner. Metadata that only nests the plugin's
 * fields under `providerMetadata` (the generic `driver: "plugin"` path) has none of them.
 */
export function ownershipMetadata(value: unknown): LeaseMetadata | null {
  const metadata = metadataObject(value);
  if (metadata === null) return null;
  return OWNERSHIP_KEYS.some((key) => recorded(metadata, key) != null) ? metadata : null;
}

/** The value recorded under `key` as the object's own property; undefined when it is not its own. */
export function recorded(metadata: LeaseMetadata, key: string): unknown {
  return Object.hasOwn(metadata, key) ? (metadata as unknown as Record<string, unknown>)[key] : undefined;
}

/**
 * A recorded number, also when Paperclip stored it as a numeric string (the sweep's bookkeeping keys are
 * milliseconds). Objects are refused rather than coerced: `Number({valueOf: "x", toString: "y"})` throws.
 */
export function recordedNumber(metadata: LeaseMetadata, key: string): number {
  const value = recorded(metadata, key);
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "") return Number(value);
  return Number.NaN;
}

export function isWellFormedMarker(value: unknown): boolean {
  return typeof value === "string" && MARKER_PATTERN.test(value);
}

const DISPLAY_LIMIT = 200;

/**
 * A recorded value as text a person can read: strings clipped to a couple of hundred characters, numbers
 * and booleans as written, anything else only named. Null when nothing is recorded.
 */
export function displayValue(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string")
    return value.length > DISPLAY_LIMIT ? `${value.slice(0, DISPLAY_LIMIT)}…` : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "(a list)" : "(an object)";
}
