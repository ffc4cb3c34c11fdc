import { PLUGIN_GENERATIONS, type PluginGeneration } from "./codes.js";
import { type LeaseMetadata, metadataObject, recorded } from "./lease-metadata.js";
import { parseRecordedConfig } from "./paperclip-config.js";

/**
 * Paperclip's CreateOS plugin exists in several generations in the field; they differ in what they
 * record at acquire, what they compare at resume and what a release does at CreateOS. Each generation
 * is a column of one table here; decision 199 names the file and commit every cell was read at.
 *
 * Two generations matter per lease: the one that wrote it (told from what its metadata records) and the
 * one that acts on it next (the plugin installed on the instance now, where a source can tell). Where
 * the acting one cannot be told, the reading that destroys less is taken, and the lease's detail says so.
 */
export interface GenerationFacts {
  /** The plugin's manifest version. */
  version: string;
  /** How the console names the generation to an operator. */
  name: string;
  /** Where its behaviour was read (repository@commit). */
  readAt: string;
  /** Keys its acquire records that no earlier generation records (the host spreads config keys in too). */
  recordsFirst: readonly string[];
  /** What a release of a lease that recorded `reuseLease: true` does at CreateOS. */
  reusableRelease: "pause" | "keep-warm-if-window-recorded";
  /** Its config parse also validates the auto-pause window, the egress allowlist and rootfsByAdapter. */
  parsesWarmConfig: boolean;
  /** The recorded fields its resume compares with the current config (any difference expires the lease). */
  resumeCompares: readonly ResumeField[];
}

/** A field a resume compares, named as the operator sees it in the lease's metadata. */
export type ResumeField =
  | "marker"
  | "shape"
  | "rootfs"
  | "requestedRootfs"
  | "snapshot"
  | "region"
  | "autoPauseAfterSeconds"
  | "baseEgressAllowlist"
  | "effectiveEgressAllowlist";

export const GENERATION_FACTS: Record<PluginGeneration, GenerationFacts> = {
  "createos-0.1": {
    version: "0.1.0",
    name: "CreateOS plugin 0.1 (pauses a reusable sandbox on release)",
    readAt: "zannis/paperclip@af163ca (plugin.ts), paperclipai/paperclip@535d70e (config.ts)",
    recordsFirst: [],
    reusableRelease: "pause",
    parsesWarmConfig: false,
    resumeCompares: ["marker", "shape", "rootfs", "region"],
  },
  "createos-0.2": {
    version: "0.2.0",
    name: "CreateOS plugin 0.2 (keeps a reusable sandbox warm on release)",
    readAt: "NodeOps-app/paperclip@a7378fa",
    recordsFirst: ["adapterType", "baseEgressAllowlist", "effectiveEgressAllowlist"],
    reusableRelease: "keep-warm-if-window-recorded",
    parsesWarmConfig: true,
    resumeCompares: [
      "marker",
      "shape",
      "rootfs",
      "region",
      "autoPauseAfterSeconds",
      "baseEgressAllowlist",
      "effectiveEgressAllowlist",
    ],
  },
  "createos-0.3": {
    version: "0.3.0",
    name: "CreateOS plugin 0.3 (keeps warm; snapshots and requested rootfs)",
    readAt: "NodeOps-app/paperclip@b2f0350 (plugin.ts, config.ts), @0bf9370 (manifest.ts)",
    recordsFirst: ["requestedRootfs"],
    reusableRelease: "keep-warm-if-window-recorded",
    parsesWarmConfig: true,
    resumeCompares: [
      "marker",
      "shape",
      "snapshot",
      "requestedRootfs",
      "region",
      "autoPauseAfterSeconds",
      "baseEgressAllowlist",
      "effectiveEgressAllowlist",
    ],
  },
};

export interface WriterReading {
  generation: PluginGeneration;
  /** One sentence: what in the metadata told it. */
  why: string;
}

/**
 * The generation that wrote this lease. The host spreads the environment's stored config into the
 * metadata, so only keys that only a plugin writes tell: `requestedRootfs` (0.3), `adapterType` and the
 * egress allowlists (0.2 records them on every lease, `adapterType` as null when there is none). A lease
 * with none of them was written by 0.1; so was anything that is not an object, for what it is worth.
 */
export function writerGeneration(metadata: unknown): WriterReading {
  const object = metadataObject(metadata);
  for (const generation of [...PLUGIN_GENERATIONS].reverse()) {
    const keys = GENERATION_FACTS[generation].recordsFirst;
    const found = object === null ? [] : keys.filter((key) => Object.hasOwn(object, key));
    if (found.length > 0) {
      return {
        generation,
        why: `Its metadata records ${found.join(", ")}, which ${version(generation)} first records.`,
      };
    }
  }
  const newerKeys = PLUGIN_GENERATIONS.flatMap((generation) => GENERATION_FACTS[generation].recordsFirst);
  return {
    generation: "createos-0.1",
    why: `Its metadata records none of ${newerKeys.join(", ")}, which every later plugin records.`,
  };
}

/** The plugin installed on the Paperclip instance a source reads, where the source can tell. */
export interface InstalledPlugin {
  /** The installed version as Paperclip records it (`plugins.version`); null when it could not be read. */
  version: string | null;
  /** The generation that version belongs to; null for a version this table does not know. */
  generation: PluginGeneration | null;
  /** Where it was read, in the operator's words, or why it could not be. */
  readFrom: string;
}

/** The generation of an installed plugin version (`0.2.4` is 0.2), or null for one the table lacks. */
export function generationOfVersion(version: string | null): PluginGeneration | null {
  if (version === null) return null;
  const match = /^v?(\d+)\.(\d+)(?:\.|$|-)/.exec(version.trim());
  if (match === null) return null;
  const found = PLUGIN_GENERATIONS.find(
    (generation) =>
      GENERATION_FACTS[generation].version.split(".").slice(0, 2).join(".") === `${match[1]}.${match[2]}`,
  );
  return found ?? null;
}

/** The generation that will act on the lease next, or null when the source cannot tell. */
export function actingGeneration(installed: InstalledPlugin | undefined): PluginGeneration | null {
  return installed?.generation ?? null;
}

/** The generations whose reading is taken: the acting one, or all of them when it is not known. */
export function candidateGenerations(installed: InstalledPlugin | undefined): readonly PluginGeneration[] {
  const actor = actingGeneration(installed);
  return actor === null ? PLUGIN_GENERATIONS : [actor];
}

/** What a release does at CreateOS. */
export type ReleaseOutcome = "nothing" | "pause" | "keep-warm" | "delete";

/** How much each outcome destroys; where the acting generation cannot be told, the least wins. */
const DESTRUCTION: Record<ReleaseOutcome, number> = { nothing: 0, "keep-warm": 1, pause: 1, delete: 2 };

export interface ReleasePrediction {
  outcome: ReleaseOutcome;
  /** The generation whose release this is. */
  by: PluginGeneration;
  /** Whether `by` is the installed plugin (true) or the reading taken because it is not known (false). */
  told: boolean;
  /** Where the acting generation is not known: what the generations that would release differently do. */
  otherwise: { by: PluginGeneration; outcome: ReleaseOutcome }[];
}

/**
 * What a release of this lease does at CreateOS, as `generation`'s plugin does it with the config the
 * host rebuilds from the lease's metadata. A lease with no sandbox id is released without a call
 * (`if (!id) return;`), and a config the parse rejects never reaches CreateOS. A keep-warm generation
 * keeps the sandbox running only when the recorded auto-pause window equals the parse's (`?? 600`): a
 * window recorded as null (a login or non-reusable lease) or not at all (a 0.1 lease) means delete.
 */
export function releaseBy(
  generation: PluginGeneration,
  sandboxId: string | null,
  metadata: unknown,
): ReleaseOutcome {
  if (sandboxId === null) return "nothing";
  const object = metadataObject(metadata);
  if (object === null) return "nothing";
  const parsed = parseRecordedConfig(object, generation);
  if (!parsed.ok) return "nothing";
  if (!parsed.reuseLease) return "delete";
  if (GENERATION_FACTS[generation].reusableRelease === "pause") return "pause";
  return recorded(object, "autoPauseAfterSeconds") === parsed.autoPauseAfterSeconds ? "keep-warm" : "delete";
}

/** The release the acting generation makes, or the one that destroys least when it cannot be told. */
export function predictRelease(
  installed: InstalledPlugin | undefined,
  sandboxId: string | null,
  metadata: unknown,
): ReleasePrediction {
  const actor = actingGeneration(installed);
  if (actor !== null) {
    return { outcome: releaseBy(actor, sandboxId, metadata), by: actor, told: true, otherwise: [] };
  }
  const outcomes = PLUGIN_GENERATIONS.map((by) => ({ by, outcome: releaseBy(by, sandboxId, metadata) }));
  const least = outcomes.reduce((a, b) => (DESTRUCTION[b.outcome] < DESTRUCTION[a.outcome] ? b : a));
  return {
    outcome: least.outcome,
    by: least.by,
    told: false,
    otherwise: outcomes.filter((entry) => entry.outcome !== least.outcome),
  };
}

/** The auto-pause window the lease recorded, in seconds, or null when it recorded none. */
export function recordedAutoPause(metadata: LeaseMetadata): number | null {
  const value = recorded(metadata, "autoPauseAfterSeconds");
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function version(generation: PluginGeneration): string {
  return `plugin ${GENERATION_FACTS[generation].version}`;
}

/** "0.2", as a sentence names a generation. */
export function shortVersion(generation: PluginGeneration): string {
  return GENERATION_FACTS[generation].version.split(".").slice(0, 2).join(".");
}
