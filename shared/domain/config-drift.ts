import type { PluginGeneration } from "./codes.js";
import { type LeaseMetadata, metadataObject, recorded } from "./lease-metadata.js";
import type { Environment } from "./paperclip.js";
import { parseRecordedConfig, type RecordedConfigParse } from "./paperclip-config.js";
import {
  candidateGenerations,
  GENERATION_FACTS,
  type InstalledPlugin,
  type ResumeField,
  writerGeneration,
} from "./plugin-generations.js";

/**
 * Why the next resume of a lease will expire it (and Paperclip will destroy its sandbox instead): two
 * checks, each of which alone is enough.
 *
 * - The plugin's own resume compares fields of the recorded metadata with the environment's current
 *   config, before any HTTP call; which fields depends on the plugin generation that resumes it
 *   (`GENERATION_FACTS[…].resumeCompares`). A newer plugin compares fields an older one never recorded,
 *   so it expires every lease the older one wrote.
 * - The host's reuse fingerprint covers the whole stored config and the plugin's version: any stored
 *   field that differs now, or a plugin of another generation than the one that wrote the lease.
 *
 * Where the resuming generation cannot be told, the plugin's fields count only when every generation's
 * resume would expire the lease: the reading that destroys less.
 */
export function driftedFields(
  metadata: LeaseMetadata,
  environment: Environment,
  installed: InstalledPlugin | undefined,
): string[] {
  const config = metadataObject(environment.config);
  // A config with no fields is one Paperclip did not show (its redacted view): nothing to compare with.
  if (config === null || Object.keys(config).length === 0) return [];
  const writer = writerGeneration(metadata).generation;
  const candidates = candidateGenerations(installed);
  const perGeneration = new Map(
    candidates.map((generation) => [generation, resumeDrift(metadata, config, generation)] as const),
  );
  // Generations name different fields (0.3 compares requestedRootfs where 0.1 compares rootfs), so what
  // must agree is the outcome, an expiry, not the field; the fields named are those of the writer's own
  // generation when it is a candidate, the likeliest to be installed still.
  const everyOneExpires = [...perGeneration.values()].every((fields) => fields.length > 0);
  const named = perGeneration.get(writer) ?? [...perGeneration.values()][0] ?? [];
  const fields = new Set<string>(everyOneExpires ? named : []);
  for (const field of fingerprintDrift(metadata, config)) fields.add(field);
  const actor = installed?.generation ?? null;
  if (actor !== null && actor !== writer) fields.add(PLUGIN_VERSION_FIELD);
  return [...fields];
}

/** The pseudo-field named when the installed plugin is of another generation than the lease's writer. */
export const PLUGIN_VERSION_FIELD = "plugin version";

/**
 * The recorded fields `generation`'s resume finds different from the current config, compared as the
 * plugin compares them: strictly, so a field a lease never recorded differs from a config value of null.
 * A current config the parse rejects cannot be resumed with at all; that is the environment's problem,
 * not this lease's, so nothing is named for it.
 */
export function resumeDrift(
  metadata: LeaseMetadata,
  config: LeaseMetadata,
  generation: PluginGeneration,
): ResumeField[] {
  const parsed = parsedConfig(config, generation);
  if (!parsed.ok) return [];
  return GENERATION_FACTS[generation].resumeCompares.filter(
    (field) => field !== "marker" && resumeFieldDiffers(field, metadata, parsed, generation),
  );
}

/**
 * The current config's parse, once per environment config and generation: a scan compares thousands of
 * rows against the same few environments, and the config objects are not mutated while it runs.
 */
const parsedConfigs = new WeakMap<LeaseMetadata, Map<PluginGeneration, RecordedConfigParse>>();

function parsedConfig(config: LeaseMetadata, generation: PluginGeneration): RecordedConfigParse {
  let byGeneration = parsedConfigs.get(config);
  if (byGeneration === undefined) {
    byGeneration = new Map();
    parsedConfigs.set(config, byGeneration);
  }
  let parsed = byGeneration.get(generation);
  if (parsed === undefined) {
    parsed = parseRecordedConfig(config, generation);
    byGeneration.set(generation, parsed);
  }
  return parsed;
}

function resumeFieldDiffers(
  field: Exclude<ResumeField, "marker">,
  metadata: LeaseMetadata,
  config: Extract<RecordedConfigParse, { ok: true }>,
  generation: PluginGeneration,
): boolean {
  const value = recorded(metadata, field);
  switch (field) {
    case "shape":
      return value !== config.shape;
    case "region":
      return value !== config.region;
    case "snapshot":
      return value !== config.snapshot;
    case "rootfs":
      return value !== (generation === "createos-0.1" ? config.rootfs : resolveRootfs(config, metadata));
    case "requestedRootfs":
      return value !== resolveRootfs(config, metadata);
    case "autoPauseAfterSeconds":
      return value !== (config.reuseLease ? config.autoPauseAfterSeconds : null);
    case "baseEgressAllowlist":
      return JSON.stringify(value ?? []) !== JSON.stringify(config.egressAllowlist ?? []);
    case "effectiveEgressAllowlist":
      return !(Array.isArray(value) && value.every((entry) => typeof entry === "string"));
  }
}

/** The rootfs the plugin picks for the lease's adapter: its `rootfsByAdapter` entry, else the rootfs. */
function resolveRootfs(
  config: Extract<RecordedConfigParse, { ok: true }>,
  metadata: LeaseMetadata,
): string | null {
  const adapter = recorded(metadata, "adapterType");
  if (
    typeof adapter === "string" &&
    config.rootfsByAdapter !== null &&
    Object.hasOwn(config.rootfsByAdapter, adapter)
  ) {
    return config.rootfsByAdapter[adapter] ?? null;
  }
  return config.rootfs;
}

/**
 * The stored-config fields the host's reuse fingerprint always covers, compared even when the current
 * config omits them: the host spreads the environment's stored config into the lease's metadata at
 * acquisition and fingerprints the same config when it looks for a lease to resume.
 */
export const FINGERPRINT_FIELDS = ["shape", "region", "reuseLease", "timeoutMs"] as const;

/**
 * Keys the fingerprint comparison leaves alone: the provider and API URL have their own ownership codes;
 * secrets are fingerprinted by version, which no row records; and the plugin writes its own value over
 * the stored one for these (0.2 records the adapter's rootfs and the lease's effective window), so the
 * recorded value says nothing about the stored config. The plugin's resume compares them instead.
 */
const NOT_FINGERPRINT_COMPARED = new Set([
  "provider",
  "apiUrl",
  "rootfs",
  "autoPauseAfterSeconds",
  "requestedRootfs",
  "snapshot",
]);
const SECRET_KEY = /(api[-_]?key|token|secret|passw|credential)/i;

/**
 * The stored-config fields whose recorded value differs from the current config: the fingerprint fields,
 * and every other field the current config sets that the lease recorded (a lease an older host wrote
 * kept only the plugin's fields, and a field's absence says nothing about the config it was acquired
 * with). Compared as JSON with keys sorted, as the fingerprint serialises them; null and absent alike.
 */
function fingerprintDrift(metadata: LeaseMetadata, config: LeaseMetadata): string[] {
  const fields: string[] = [...FINGERPRINT_FIELDS];
  for (const key of Object.keys(config)) {
    if (fields.includes(key) || NOT_FINGERPRINT_COMPARED.has(key) || SECRET_KEY.test(key)) continue;
    if (isSecretRef(recorded(config, key))) continue;
    fields.push(key);
  }
  return fields.filter(
    (field) =>
      !NOT_FINGERPRINT_COMPARED.has(field) &&
      (Object.hasOwn(metadata, field) || field === "shape" || field === "region") &&
      differs(recorded(metadata, field), recorded(config, field)),
  );
}

function differs(recordedValue: unknown, current: unknown): boolean {
  return stableJson(recordedValue ?? null) !== stableJson(current ?? null);
}

function isSecretRef(value: unknown): boolean {
  const object = metadataObject(value);
  return (
    object !== null &&
    (recorded(object, "secretId") !== undefined || recorded(object, "type") === "secret_ref")
  );
}

/** JSON with object keys sorted, own keys only; depth-capped so a hostile value cannot recurse forever. */
function stableJson(value: unknown, depth = 0): string {
  if (depth > 20) return '"(deep)"';
  if (Array.isArray(value)) return `[${value.map((entry) => stableJson(entry, depth + 1)).join(",")}]`;
  const object = metadataObject(value);
  if (object !== null) {
    const keys = Object.keys(object).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(recorded(object, key), depth + 1)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Whether one of the evidence fields (shape, rootfs, region) differs as the resume compares it. */
export function hasDrifted(
  metadata: LeaseMetadata,
  environment: Environment,
  field: "shape" | "rootfs" | "region",
  installed: InstalledPlugin | undefined,
): boolean {
  return driftedFields(metadata, environment, installed).includes(field);
}
