import type { PluginGeneration } from "./codes.js";
import { warmUntil } from "./flags.js";
import type { ClassifiedLease } from "./inventory.js";
import {
  type PendingCleanupAttempts,
  pendingCleanupAttempts,
  type RunFailure,
  runFailureOf,
} from "./paperclip-will.js";
import {
  GENERATION_FACTS,
  predictRelease,
  type ReleaseOutcome,
  writerGeneration,
} from "./plugin-generations.js";
import { recordedSandboxId } from "./sandbox-id.js";

/**
 * Which plugin generations a lease was judged by, and every reading taken because one could not be
 * told: the lease's detail and `scan --json` show it beside the verdict, so an operator can check the
 * rule against the version they run.
 */
export interface JudgedBy {
  wrote: { generation: PluginGeneration; version: string; why: string };
  acts: { generation: PluginGeneration | null; installedVersion: string | null; readFrom: string };
  /** Sentences, one per reading taken where a generation could not be told; empty when none was. */
  readings: string[];
}

/** What the source that read the row says when it cannot tell the installed plugin. */
export const INSTALLED_PLUGIN_UNKNOWN =
  "This source (Paperclip's REST API, or a ledger file) does not say which CreateOS plugin the instance runs.";

export function judgedBy(classified: Pick<ClassifiedLease, "lease" | "installedPlugin">): JudgedBy {
  const writer = writerGeneration(classified.lease.metadata);
  const installed = classified.installedPlugin;
  const actor = installed?.generation ?? null;
  const readings: string[] = [];
  if (actor === null) {
    const version = installed?.version;
    const unknown =
      version === null || version === undefined
        ? "Which CreateOS plugin the instance runs is not known"
        : `The installed CreateOS plugin ${version} is of no generation Leasekeeper knows`;
    readings.push(
      `${unknown}, so each rule takes the reading that destroys least: a recorded config is rejected only when every generation rejects it, the next resume expires the lease only when every generation's would, and a release is the one that deletes least.`,
    );
  }
  return {
    wrote: {
      generation: writer.generation,
      version: GENERATION_FACTS[writer.generation].version,
      why: writer.why,
    },
    acts: {
      generation: actor,
      installedVersion: installed?.version ?? null,
      readFrom: installed?.readFrom ?? INSTALLED_PLUGIN_UNKNOWN,
    },
    readings,
  };
}

/** The facts behind "Paperclip will" that scripts read as fields of their own. */
export interface PaperclipFacts {
  judgedBy: JudgedBy;
  /** What a release does at CreateOS, as the acting generation (or the least destructive) makes it. */
  release: { outcome: ReleaseOutcome; by: PluginGeneration; told: boolean };
  /** Set for a lease whose run or session fails now, with the plugin's messages verbatim. */
  runFails: RunFailure | null;
  /** When a warm sandbox's auto-pause window ends (ISO), for a lease flagged `warm`. */
  warmUntil: string | null;
  /** Paperclip's cleanup sweep's attempts, for a `pending_cleanup` lease. */
  pendingCleanup: PendingCleanupAttempts | null;
}

export function paperclipFacts(
  classified: Pick<ClassifiedLease, "lease" | "environment" | "verdict" | "provider" | "installedPlugin">,
): PaperclipFacts {
  const { lease, verdict, provider, installedPlugin } = classified;
  const prediction = predictRelease(installedPlugin, recordedSandboxId(lease), lease.metadata);
  return {
    judgedBy: judgedBy(classified),
    release: { outcome: prediction.outcome, by: prediction.by, told: prediction.told },
    runFails: runFailureOf(classified),
    warmUntil: verdict.flags.includes("warm")
      ? new Date(warmUntil(lease, provider.code)).toISOString()
      : null,
    pendingCleanup: lease.status === "pending_cleanup" ? pendingCleanupAttempts(lease.metadata) : null,
  };
}
