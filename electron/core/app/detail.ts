import type { LeaseDetail, UntrackedSandboxView } from "../../../shared/contract/index.js";
import { displayApiUrl } from "../../../shared/domain/api-url.js";
import type { ActionKind } from "../../../shared/domain/codes.js";
import {
  type ExplanationPart,
  explainVerdict,
  explainVerdictParts,
} from "../../../shared/domain/explain-verdict.js";
import type { ClassifiedLease, UntrackedSandbox } from "../../../shared/domain/inventory.js";
import { paperclipFacts } from "../../../shared/domain/judged-by.js";
import { metadataObject, recorded } from "../../../shared/domain/lease-metadata.js";
import { leaseStory } from "../../../shared/domain/lease-story.js";
import { listedEnvironmentId } from "../../../shared/domain/listed-environment.js";
import { ownershipEvidence } from "../../../shared/domain/ownership-evidence.js";
import {
  recordedReuseLease,
  recordedReuseLeaseText,
  releaseSentence,
} from "../../../shared/domain/paperclip-will.js";
import { staleConfigFields } from "../inventory/report.js";
import { readWholeLease, type SourceFinder, type WholeLease } from "../leases/whole-lease.js";

/**
 * One lease as the detail view shows it. Everything is copied field by field into the contract's shape:
 * metadata values are display strings, the marker is a prefix, URLs are cut to their origin, and keys
 * that name a secret are withheld, so a hand-built row cannot smuggle anything across.
 */

const MAX_ENTRIES = 100;
const MAX_VALUE = 500;
const MAX_TEXT = 2000;
const MARKER_PREFIX = 8;
/** Keys whose values are never shown (secret refs are stripped by Paperclip, but rows are hand-built too). */
const SECRET_KEY = /(api[-_]?key|token|secret|passw|credential|authorization|cookie|session|private)/i;
/** Keys the workspace is authenticated with. */
const MARKER_KEY = /^(marker|workspaceSentinel)$/i;

function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** Free text crossing the contract, capped. */
export function clipText(text: string): string {
  return clip(text, MAX_TEXT);
}

function markerPrefix(value: unknown): string | null {
  if (typeof value !== "string" || value === "") return null;
  return `${value.slice(0, Math.min(MARKER_PREFIX, Math.floor(value.length / 2)))}…`;
}

/** A nested value as JSON, with markers and secret-named keys replaced, capped. */
function nestedDisplay(value: unknown): string {
  try {
    const json = JSON.stringify(value, (key, inner: unknown) => {
      if (key !== "" && SECRET_KEY.test(key)) return "(withheld)";
      if (key !== "" && MARKER_KEY.test(key)) return markerPrefix(inner) ?? "(withheld)";
      if (typeof inner === "string" && /^[a-z][a-z0-9+.-]*:\/\//i.test(inner)) return displayApiUrl(inner);
      return inner;
    });
    return clip(json ?? String(value), MAX_VALUE);
  } catch {
    return "(unreadable)";
  }
}

function entryFor(key: string, value: unknown): LeaseDetail["metadata"]["entries"][number] {
  const shownKey = clip(key, 100);
  if (MARKER_KEY.test(key))
    return { key: shownKey, value: markerPrefix(value) ?? "(withheld)", redacted: true };
  if (SECRET_KEY.test(key) && !/^plugin(Id|Key)$/.test(key))
    return { key: shownKey, value: "(withheld)", redacted: true };
  if (typeof value === "string") {
    const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim());
    return {
      key: shownKey,
      value: looksLikeUrl ? (displayApiUrl(value) ?? "") : clip(value, MAX_VALUE),
      redacted: false,
    };
  }
  if (value === null || typeof value === "number" || typeof value === "boolean") {
    return { key: shownKey, value: String(value), redacted: false };
  }
  return { key: shownKey, value: nestedDisplay(value), redacted: false };
}

function metadataView(raw: unknown, partialNote: string | null): LeaseDetail["metadata"] {
  if (raw === null || raw === undefined)
    return { shape: "null", entries: [], markerPrefix: null, partialNote };
  const metadata = metadataObject(raw);
  if (metadata === null) return { shape: "other", entries: [], markerPrefix: null, partialNote };
  const keys = Object.keys(metadata);
  const entries = keys.slice(0, MAX_ENTRIES).map((key) => entryFor(key, recorded(metadata, key)));
  const nested = recorded(metadata, "providerMetadata");
  const nestedMarker =
    typeof nested === "object" && nested !== null
      ? (Object.getOwnPropertyDescriptor(nested, "marker")?.value as unknown)
      : undefined;
  const hasFlatKeys = ["provider", "companyId", "environmentId", "apiUrl"].some(
    (key) => recorded(metadata, key) != null,
  );
  return {
    shape: !hasFlatKeys && nested !== undefined ? "nested" : "object",
    entries,
    markerPrefix: markerPrefix(recorded(metadata, "marker") ?? nestedMarker),
    partialNote,
  };
}

/**
 * The metadata to show: the whole record when there is one, else the keys the scan read and why the
 * whole record is missing. A row the scan read in part and nobody read again says so too.
 */
function shownMetadata(
  lease: ClassifiedLease["lease"],
  whole: WholeLease | undefined,
): LeaseDetail["metadata"] {
  const read = whole ?? (lease.partialMetadata ? { ok: false, reason: "it was not read again" } : null);
  if (read === null) return metadataView(lease.metadata, null);
  if (read.ok) return metadataView(read.lease.metadata, null);
  const reason = read.reason.replace(/\.$/, "");
  return metadataView(
    lease.metadata,
    clip(
      `The scan read this row without Paperclip's own bookkeeping keys; the whole record could not be read: ${reason}.`,
      MAX_TEXT,
    ),
  );
}

/**
 * A lease's detail with its whole metadata: a row the scan read only in part is read again by id, from
 * the source that listed it, now. When that fails the detail still answers, from the keys the scan read.
 */
export async function readLeaseDetail(
  found: {
    lease: ClassifiedLease;
    byId: ReadonlyMap<string, ClassifiedLease>;
    companies: readonly { id: string; name: string }[];
  },
  sources: SourceFinder,
): Promise<LeaseDetail> {
  const whole = await readWholeLease(sources, found.lease);
  const companyNames = new Map(found.companies.map(({ id, name }) => [id, name]));
  let sourceKind: SourceKind | undefined;
  try {
    sourceKind = sources(found.lease.sourceId)?.kind;
  } catch {
    sourceKind = undefined;
  }
  return leaseDetail(found.lease, found.byId, companyNames, whole, sourceKind);
}

type SourceKind = "ledger" | "paperclip" | "paperclip-db";
type HolderField = "agentName" | "issueTitle" | "executionWorkspaceName";

/**
 * Why what holds the row is shown by id: its source gives no names (REST, a ledger file), or the database
 * has no table (or grant) for some of them. Null when every holder the row names was read by name, or
 * nothing holds it.
 */
export function holderNamesNote(
  lease: ClassifiedLease["lease"],
  sourceKind: SourceKind | undefined,
): string | null {
  const holders: [string | null, HolderField, string][] = [
    [lease.heartbeatRunId, "agentName", "run"],
    [lease.issueId, "issueTitle", "issue"],
    [lease.executionWorkspaceId, "executionWorkspaceName", "workspace"],
  ];
  const unnamed = holders.filter(([id, field]) => id !== null && lease[field] === undefined);
  if (unnamed.length === 0) return null;
  if (sourceKind === "paperclip") return "Paperclip's REST API does not give run, issue or workspace names.";
  if (sourceKind === "paperclip-db") {
    const kinds = unnamed.map(([, , kind]) => kind);
    const listed = kinds.length === 1 ? kinds[0]! : `${kinds.slice(0, -1).join(", ")} and ${kinds.at(-1)!}`;
    return `This Paperclip database gives no ${listed} names: it lacks the table, or the role may not read it.`;
  }
  return "This source does not give run, issue or workspace names.";
}

const nullableText = (value: string | null | undefined, limit = MAX_TEXT) =>
  value == null ? null : clip(value, limit);

export function leaseDetail(
  classified: ClassifiedLease,
  byId: ReadonlyMap<string, ClassifiedLease>,
  companyNames: ReadonlyMap<string, string> = new Map(),
  /** The row read again by id for its whole metadata (`readWholeLease`), when the scan read part of it. */
  whole?: WholeLease,
  /** The kind of source that listed the row, for saying why it gives no names. */
  sourceKind?: SourceKind,
): LeaseDetail {
  const { lease, environment, verdict, provider } = classified;
  const recordedReuse = recordedReuseLease(lease.metadata);
  const facts = paperclipFacts(classified);
  const story = leaseStory(classified);
  const currentReuse =
    typeof environment?.config.reuseLease === "boolean" ? environment.config.reuseLease : null;
  const companyName = companyNames.get(lease.companyId);
  const config = environment?.config;
  const configText = (value: unknown) => (typeof value === "string" ? clip(value, MAX_VALUE) : null);
  return {
    leaseId: lease.id,
    sourceId: classified.sourceId,
    row: {
      id: lease.id,
      companyId: lease.companyId,
      environmentId: lease.environmentId,
      executionWorkspaceId: lease.executionWorkspaceId,
      issueId: lease.issueId,
      heartbeatRunId: lease.heartbeatRunId,
      status: lease.status,
      leasePolicy: lease.leasePolicy,
      provider: nullableText(lease.provider, MAX_VALUE),
      providerLeaseId: nullableText(lease.providerLeaseId, MAX_VALUE),
      acquiredAt: lease.acquiredAt,
      lastUsedAt: lease.lastUsedAt,
      expiresAt: lease.expiresAt,
      releasedAt: lease.releasedAt,
      failureReason: nullableText(lease.failureReason),
      cleanupStatus: nullableText(lease.cleanupStatus, MAX_VALUE),
      createdAt: lease.createdAt,
      updatedAt: lease.updatedAt,
      ...holderNames(lease),
    },
    holderNamesNote: holderNamesNote(lease, sourceKind),
    metadata: shownMetadata(lease, whole),
    environment: environment
      ? {
          sourceId: classified.sourceId,
          id: environment.id,
          companyId: environment.companyId,
          name: environment.name,
          driver: environment.driver,
          status: environment.status,
          apiUrl: displayApiUrl(config?.apiUrl),
          shape: configText(config?.shape),
          rootfs: configText(config?.rootfs),
          region: configText(config?.region),
          reuseLease: typeof config?.reuseLease === "boolean" ? config.reuseLease : null,
          timeoutMs: typeof config?.timeoutMs === "number" ? config.timeoutMs : null,
        }
      : null,
    verdict: {
      headline: verdict.headline,
      ownership: verdict.ownership,
      provider: verdict.provider,
      flags: verdict.flags,
      allowedActions: verdict.allowedActions,
      overridableActions: verdict.overridableActions,
      destroyConfirmation: verdict.destroyConfirmation,
      refusals: Object.entries(verdict.refusals).flatMap(([action, refusal]) =>
        refusal ? [{ action: action as ActionKind, reason: refusal.reason, message: refusal.message }] : [],
      ),
    },
    ownershipEvidence: ownershipEvidence(lease, environment, classified.installedPlugin).map((field) => ({
      field: field.field,
      recorded: field.recorded,
      expected: field.expected,
      match: field.match,
    })),
    explanation: explainVerdict(classified),
    explanationParts: explainVerdictParts(classified).map(clipPart),
    paperclipWill: clip(story.paperclipWill, MAX_TEXT),
    story: {
      whatIsWrong: story.whatIsWrong.map(clipPart),
      whatToDo: story.whatToDo === null ? null : clip(story.whatToDo, MAX_TEXT),
      refusesRelease: story.refusesRelease,
      paperclipCallsAgain: story.paperclipCallsAgain,
    },
    staleConfigFields: staleConfigFields(classified).map((field) => clip(field, 100)),
    releaseEffect: {
      recordedReuseLease: recordedReuse,
      recordedReuseLeaseText: recordedReuseLeaseText(lease.metadata),
      currentReuseLease: currentReuse,
      outcome: facts.release.outcome,
      sentence: clip(releaseSentence(classified), MAX_TEXT),
    },
    judgedBy: {
      wrote: { ...facts.judgedBy.wrote, why: clip(facts.judgedBy.wrote.why, MAX_TEXT) },
      acts: {
        generation: facts.judgedBy.acts.generation,
        installedVersion: nullableText(facts.judgedBy.acts.installedVersion, 100),
        readFrom: clip(facts.judgedBy.acts.readFrom, MAX_TEXT),
      },
      readings: facts.judgedBy.readings.map((reading) => clip(reading, MAX_TEXT)),
    },
    runFails: facts.runFails,
    warmUntil: facts.warmUntil,
    pendingCleanup: facts.pendingCleanup,
    company: { id: lease.companyId, name: companyName === undefined ? null : clip(companyName, MAX_VALUE) },
    actedOnBy: provider.actedOnBy
      ? {
          action: provider.actedOnBy.action,
          effect: provider.actedOnBy.effect,
          jobId: clip(provider.actedOnBy.jobId, 200),
          at: provider.actedOnBy.at,
          operator: clip(provider.actedOnBy.operator, MAX_VALUE),
        }
      : null,
    provider: {
      code: provider.code,
      origin: provider.origin,
      originFrom: provider.originFrom,
      credential: provider.credential,
      observedAt: provider.observedAt,
      rawStatus: nullableText(provider.rawStatus, 100),
      unknownReason: provider.unknownReason,
      shape: nullableText(provider.sandbox?.shape, 100),
      rootfs: nullableText(provider.sandbox?.rootfs, 200),
      region: nullableText(provider.sandbox?.region, 100),
      vcpu: provider.sandbox?.vcpu ?? null,
      memMib: provider.sandbox?.memMib ?? null,
      createdAt: nullableText(provider.sandbox?.createdAt, 100),
    },
    sharedWith: classified.sharedWith.map((leaseId) => {
      const other = byId.get(leaseId);
      return {
        leaseId,
        environmentId: other === undefined ? null : listedEnvironmentId(other),
        environmentName: other?.environment?.name ?? null,
        status: other?.lease.status ?? "",
        headline: other?.verdict.headline ?? null,
      };
    }),
  };
}

/** The row's holder names its source read, each capped; absent ones stay absent. */
function holderNames(lease: ClassifiedLease["lease"]): Partial<LeaseDetail["row"]> {
  const names: Partial<LeaseDetail["row"]> = {};
  for (const field of ["agentName", "issueTitle", "issueIdentifier", "executionWorkspaceName"] as const) {
    const value = lease[field];
    if (value !== undefined) names[field] = nullableText(value, MAX_VALUE);
  }
  return names;
}

export function untrackedView(sandbox: UntrackedSandbox): UntrackedSandboxView {
  const text = (value: string | undefined, limit: number) =>
    value === undefined ? null : clip(value, limit);
  return {
    sandboxId: sandbox.sandboxId,
    origin: sandbox.origin,
    credential: sandbox.credential,
    status: clip(sandbox.status, 100),
    shape: text(sandbox.sandbox.shape, 100),
    rootfs: text(sandbox.sandbox.rootfs, 200),
    region: text(sandbox.sandbox.region, 100),
    vcpu: sandbox.sandbox.vcpu ?? null,
    memMib: sandbox.sandbox.memMib ?? null,
    createdAt: text(sandbox.sandbox.createdAt, 100),
    name: text(sandbox.sandbox.name, 200),
    createdBy: text(sandbox.sandbox.createdBy, 200),
  };
}

function clipPart(part: ExplanationPart): ExplanationPart {
  return typeof part === "string"
    ? clip(part, MAX_TEXT)
    : { ...part, id: clip(part.id, MAX_VALUE), text: clip(part.text, MAX_VALUE) };
}
