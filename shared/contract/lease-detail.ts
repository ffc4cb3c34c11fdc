import { z } from "zod";
import {
  ACTION_KINDS,
  DESTROY_CONFIRMATIONS,
  HEADLINES,
  OWNERSHIP_CODES,
  PLUGIN_GENERATIONS,
  PROVIDER_CODES,
  ROW_FLAGS,
} from "../domain/codes.js";
import { UNKNOWN_REASONS } from "../domain/inventory.js";

/**
 * Everything about one lease, fetched on demand when the operator opens it. The workspace marker never
 * travels in full: only its first 8 characters. URLs are cut to their origin,
 * and metadata values whose key names a secret are withheld.
 */

const text = z.string();
const nullableText = z.string().nullable();

/**
 * One field of the ownership rule (and the config and marker checks beside it): what the row recorded
 * next to what the environment it is listed under expects. Built by `ownershipEvidence` in shared/domain.
 */
export const FieldEvidenceSchema = z.object({
  field: text,
  /** The value recorded in the lease metadata (display form; the marker as a short prefix). */
  recorded: nullableText,
  /** What the environment expects, null when there is nothing to compare with. */
  expected: nullableText,
  match: z.enum(["match", "mismatch", "not-compared"]),
});
export type FieldEvidenceView = z.infer<typeof FieldEvidenceSchema>;

export const MetadataEntrySchema = z.object({
  key: text,
  /** Display form: strings as they are (capped), other JSON values serialized; never a secret or full marker. */
  value: text,
  redacted: z.boolean(),
});

/** A piece of an explanation: text, or an environment or company it names (shown by name, linked). */
const ExplanationPartSchema = z.union([
  text,
  z.object({ ref: z.literal("environment"), sourceId: text, id: text, text }),
  z.object({ ref: z.literal("company"), id: text, text }),
]);

export const LeaseDetailSchema = z.object({
  leaseId: text,
  sourceId: text,
  row: z.object({
    id: text,
    companyId: text,
    environmentId: nullableText,
    executionWorkspaceId: nullableText,
    issueId: nullableText,
    heartbeatRunId: nullableText,
    status: text,
    leasePolicy: text,
    provider: nullableText,
    providerLeaseId: nullableText,
    acquiredAt: text,
    lastUsedAt: text,
    expiresAt: nullableText,
    releasedAt: nullableText,
    failureReason: nullableText,
    cleanupStatus: nullableText,
    createdAt: nullableText,
    updatedAt: nullableText,
    /**
     * The names of what holds the row, where its source reads them (Paperclip's database): the agent
     * whose run it is (a run has no name of its own), the issue's title and identifier, the execution
     * workspace's name. Null when the source found none; absent when it cannot tell.
     */
    agentName: nullableText.optional(),
    issueTitle: nullableText.optional(),
    issueIdentifier: nullableText.optional(),
    executionWorkspaceName: nullableText.optional(),
  }),
  /**
   * Why the run, issue or workspace holding the row is shown by id only, when its source gives no names
   * ("Paperclip's REST API does not give run, issue or workspace names."); null when it gave them, or
   * when nothing holds the row.
   */
  holderNamesNote: nullableText.optional(),
  metadata: z.object({
    /** `object`: a flat object; `nested`: CreateOS fields sit under providerMetadata; `null`/`other`: unusable. */
    shape: z.enum(["object", "nested", "null", "other"]),
    entries: z.array(MetadataEntrySchema),
    /** The first 8 characters of the workspace marker, or null when the row has none. */
    markerPrefix: nullableText,
    /**
     * Null when `entries` are the whole metadata. Otherwise the scan left the host's bookkeeping out and
     * the whole row could not be read again: the entries are the keys the scan read, and this says why.
     */
    partialNote: nullableText,
  }),
  environment: z
    .object({
      sourceId: text,
      id: text,
      companyId: nullableText,
      name: text,
      driver: text,
      status: text,
      apiUrl: nullableText,
      shape: nullableText,
      rootfs: nullableText,
      region: nullableText,
      reuseLease: z.boolean().nullable(),
      timeoutMs: z.number().nullable(),
    })
    .nullable(),
  verdict: z.object({
    headline: z.enum(HEADLINES),
    ownership: z.array(z.enum(OWNERSHIP_CODES)),
    provider: z.enum(PROVIDER_CODES),
    flags: z.array(z.enum(ROW_FLAGS)),
    allowedActions: z.array(z.enum(ACTION_KINDS)),
    overridableActions: z.array(z.enum(ACTION_KINDS)),
    destroyConfirmation: z.enum(DESTROY_CONFIRMATIONS).nullable(),
    refusals: z.array(z.object({ action: z.enum(ACTION_KINDS), reason: text, message: text })),
  }),
  ownershipEvidence: z.array(FieldEvidenceSchema),
  /** One sentence, in the operator's words, of why the row has its headline. */
  explanation: text,
  /**
   * The same explanation with each environment and company it speaks of as a reference, so the drawer
   * names it (the id on hover) and links it to its rows; `text` is what the plain sentence quotes.
   */
  explanationParts: z.array(ExplanationPartSchema).max(20),
  /** One sentence of what Paperclip itself will do with this lease. */
  paperclipWill: text,
  /**
   * The drawer's answers from one story of the verdict (`leaseStory`): the red box (what is wrong), the
   * next step (what to do), and whether Paperclip will refuse to release it, so they cannot disagree.
   */
  story: z.object({
    whatIsWrong: z.array(ExplanationPartSchema).max(20),
    whatToDo: nullableText,
    refusesRelease: z.boolean(),
    paperclipCallsAgain: z.enum([
      "yes",
      "ended",
      "closed",
      "no-environment",
      "environment-unread",
      "unknown-status",
    ]),
  }),
  /** The config fields whose recorded value differs from the environment's (behind `stale-config`). */
  staleConfigFields: z.array(text),
  /**
   * What a release does at CreateOS, as the plugin generation that acts on the lease makes it with the
   * config the host rebuilds from the lease's metadata; the environment's current reuseLease is shown
   * beside the recorded one when they differ. `sentence` says it whole, whose release it is included.
   */
  releaseEffect: z.object({
    recordedReuseLease: z.boolean().nullable(),
    /** What the metadata holds under reuseLease, as text (a string quoted); null when nothing. */
    recordedReuseLeaseText: text.nullable(),
    currentReuseLease: z.boolean().nullable(),
    outcome: z.enum(["nothing", "pause", "keep-warm", "delete"]),
    sentence: text,
  }),
  /** Which plugin generations judged the lease, and each reading taken where one was not known. */
  judgedBy: z.object({
    wrote: z.object({ generation: z.enum(PLUGIN_GENERATIONS), version: text, why: text }),
    acts: z.object({
      generation: z.enum(PLUGIN_GENERATIONS).nullable(),
      installedVersion: nullableText,
      readFrom: text,
    }),
    readings: z.array(text),
  }),
  /** Set when the run or session holding the lease fails now, with the plugin's messages verbatim. */
  runFails: z
    .object({ holder: z.enum(["run", "session"]), messages: z.array(text), because: text })
    .nullable(),
  /** When a warm sandbox's auto-pause window ends (ISO), for a lease flagged `warm`. */
  warmUntil: nullableText,
  /** Paperclip's cleanup sweep's attempts and whether it escalated, for a `pending_cleanup` lease. */
  pendingCleanup: z.object({ attempts: z.number().int().min(0), escalated: z.boolean() }).nullable(),
  /** The row's company, with its name where a source gave one. */
  company: z.object({ id: text, name: nullableText }),
  /** Set when a Leasekeeper job destroyed or released this sandbox: what it did, for whom, when. */
  actedOnBy: z
    .object({
      action: z.enum(["destroy", "release"]),
      effect: z.enum(["pause", "delete"]),
      jobId: text,
      at: text,
      operator: text,
    })
    .nullable(),
  provider: z.object({
    code: z.enum(PROVIDER_CODES),
    origin: nullableText,
    originFrom: z.enum(["lease-metadata", "environment", "none"]),
    credential: nullableText,
    observedAt: nullableText,
    rawStatus: nullableText,
    unknownReason: z.enum(UNKNOWN_REASONS).nullable(),
    shape: nullableText,
    rootfs: nullableText,
    region: nullableText,
    vcpu: z.number().nullable(),
    memMib: z.number().nullable(),
    createdAt: nullableText,
  }),
  /** Other rows naming the same sandbox. */
  sharedWith: z.array(
    z.object({
      leaseId: text,
      environmentId: nullableText,
      environmentName: nullableText,
      status: text,
      headline: z.enum(HEADLINES).nullable(),
    }),
  ),
});
export type LeaseDetail = z.infer<typeof LeaseDetailSchema>;

export const UntrackedSandboxViewSchema = z.object({
  sandboxId: text,
  origin: text,
  credential: text,
  status: text,
  shape: nullableText,
  rootfs: nullableText,
  region: nullableText,
  vcpu: z.number().nullable(),
  memMib: z.number().nullable(),
  createdAt: nullableText,
  /** The name given at create, and who CreateOS says created it, where it gives them. */
  name: nullableText,
  createdBy: nullableText,
});
export type UntrackedSandboxView = z.infer<typeof UntrackedSandboxViewSchema>;

/** An unnamed sandbox at an origin where a source was incomplete: shown, never offered for destroy. */
export const UncertainSandboxViewSchema = UntrackedSandboxViewSchema.extend({ reason: text });
export type UncertainSandboxView = z.infer<typeof UncertainSandboxViewSchema>;
