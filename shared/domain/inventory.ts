import type {
  ActionKind,
  DestroyConfirmation,
  Headline,
  OwnershipCode,
  ProviderCode,
  RowFlag,
} from "./codes.js";
import type { Company, Environment, LeaseRow, SourceGap, SourceProblem } from "./paperclip.js";
import type { InstalledPlugin } from "./plugin-generations.js";

/** Why a provider state could not be read. Each of these yields `unknown`, never `gone`. */
export const UNKNOWN_REASONS = [
  "no-credential",
  "unauthorized",
  "forbidden",
  "network",
  "timeout",
  "rate-limited",
  "server-error",
  "invalid-response",
  "invalid-url",
  "no-sandbox-id",
  "unrecognized-status",
] as const;
export type UnknownReason = (typeof UNKNOWN_REASONS)[number];

/** A sandbox as one CreateOS listing reported it (only the fields a verdict or the UI uses). */
export interface ProviderSandbox {
  id: string;
  /** CreateOS's status string, kept verbatim even when it is not one we know. */
  status: string;
  shape?: string;
  rootfs?: string;
  region?: string;
  vcpu?: number;
  memMib?: number;
  createdAt?: string;
  /** The name given at create, where there is one. */
  name?: string;
  /** The identity CreateOS says created it, where it says. */
  createdBy?: string;
}

/** What listing every sandbox of one credential at one origin produced. */
export interface SandboxListing {
  origin: string;
  credential: string;
  outcome:
    | { ok: true; sandboxes: ProviderSandbox[]; observedAt: string }
    | { ok: false; reason: UnknownReason; httpStatus?: number };
}

/** The provider evidence behind a lease's provider code. */
export interface ProviderObservation {
  code: ProviderCode;
  /** The origin asked: the lease's recorded apiUrl, or the environment's when metadata is missing. */
  origin: string | null;
  originFrom: "lease-metadata" | "environment" | "none";
  /** The credential whose listing showed the sandbox. */
  credential: string | null;
  observedAt: string | null;
  rawStatus: string | null;
  unknownReason: UnknownReason | null;
  sandbox: ProviderSandbox | null;
  /**
   * Set when a Leasekeeper job confirmed it destroyed, or released, this sandbox, so the row reads as it
   * now is without waiting for a fresh listing or for Paperclip to update the row.
   */
  actedOnBy?: LeasekeeperAction | null;
}

/** What a Leasekeeper job confirmed it did to a sandbox, by whom and when. */
export interface LeasekeeperAction {
  action: "destroy" | "release";
  /** What happened at CreateOS: a release pauses (reuseLease) or deletes; a destroy deletes. */
  effect: "pause" | "delete";
  jobId: string;
  /** When the job confirmed it, ISO. */
  at: string;
  /** The operator the job ran for, as the audit log names them ("Ada (ada)"). */
  operator: string;
}

/** A refusal is a value: the UI shows `message`, tests check `reason`, the audit log keeps both. */
export interface Refusal {
  reason: string;
  message: string;
}

export interface LeaseVerdict {
  ownership: OwnershipCode[];
  provider: ProviderCode;
  flags: RowFlag[];
  headline: Headline;
  allowedActions: ActionKind[];
  /** Actions that become allowed only with an explicit override (in-use, or shared with a live row). */
  overridableActions: ActionKind[];
  destroyConfirmation: DestroyConfirmation | null;
  refusals: Partial<Record<ActionKind, Refusal>>;
}

export interface ClassifiedLease {
  sourceId: string;
  lease: LeaseRow;
  /** The environment the row is listed under; null for an orphan row whose environment is gone. */
  environment: Environment | null;
  verdict: LeaseVerdict;
  provider: ProviderObservation;
  /** Other lease ids naming the same sandbox (at most `SHARED_WITH_LIMIT`, the active and retained ones first). */
  sharedWith: string[];
  /** How many other leases name the sandbox, set only when there are more than `sharedWith` lists. */
  sharedWithCount?: number;
  /**
   * The CreateOS plugin installed on the row's Paperclip instance, set when its source could read it
   * (Paperclip's database); absent, the acting generation is unknown and the verdict took the reading
   * that destroys less.
   */
  installedPlugin?: InstalledPlugin;
}

export interface UntrackedSandbox {
  sandboxId: string;
  origin: string;
  credential: string;
  status: string;
  sandbox: ProviderSandbox;
}

/**
 * A listed sandbox that no row names, at an origin where some source could not be read completely: it
 * may belong to a row the source did not show, so it is reported and never offered for destroy.
 */
export interface UncertainSandbox extends UntrackedSandbox {
  /** Why it cannot be called an orphan, in the operator's words (the source gaps at its origin). */
  reason: string;
}

export interface EnvironmentSummary {
  sourceId: string;
  environmentId: string;
  /** The owning company in Paperclip's older, company-scoped shape; null for an instance-scoped one. */
  companyId: string | null;
  name: string;
  counts: Record<Headline, number>;
}

export interface OriginHealth {
  origin: string;
  credential: string;
  ok: boolean;
  reason: UnknownReason | null;
  httpStatus: number | null;
  sandboxCount: number;
}

export interface Inventory {
  generatedAt: string;
  /** CreateOS requests made to build this inventory. */
  requests: number;
  environments: EnvironmentSummary[];
  leases: ClassifiedLease[];
  untracked: UntrackedSandbox[];
  /** Sandboxes no row names at origins where a source was incomplete (see `UncertainSandbox`). */
  untrackedUncertain: UncertainSandbox[];
  /** Companies by id, from every source, so the UI can name them. */
  companies: Company[];
  problems: SourceProblem[];
  gaps: SourceGap[];
  origins: OriginHealth[];
  /** What each source said of how it read, where it said something (`SourceSnapshot.note`). */
  sourceNotes?: { source: string; message: string }[];
}

/** Lease rows and environments as one source delivered them. */
export interface SourceSnapshot {
  sourceId: string;
  environments: Environment[];
  leases: LeaseRow[];
  companies: Company[];
  problems: SourceProblem[];
  gaps: SourceGap[];
  /** The CreateOS plugin installed on the instance, for a source that can read it. */
  installedPlugin?: InstalledPlugin;
  /** One sentence on how the source read (a database's table shape); never a problem, never fatal. */
  note?: string;
  /**
   * How far a source that can read only what changed (Paperclip's database) read, to be handed back as
   * the next load's `changedSince`: `watermark` is the database's own time inside the read's snapshot
   * (ISO 8601), `changedRows` the lease rows this read fetched (every row on a full pass), `fullPass`
   * whether it read every row (the only read that drops deleted rows), and `basis` a digest of what rows
   * depend on beyond their own columns (the environments, the metadata keys left out): the next read is a
   * full one when it differs. Absent for sources that always read everything.
   */
  readUpTo?: { watermark: string; changedRows: number; fullPass: boolean; basis?: string };
}
