import type { SandboxStatus } from "../catalog.js";
import type { FleetSandbox } from "../fleet.js";
import type { Random } from "../random.js";
import { type DemoAccount, type DemoEnvironment, hex, sandboxId, uuid } from "./identities.js";
import { type LedgerLease, MARKER_PATH } from "./ledger.js";
import type { Scenario } from "./scenario-names.js";

// The workbench scenarios plant rows and sandboxes on: realistic timestamps, the metadata the host
// writes, sandboxes at the right account, and the record of what was planted where.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The auto-pause window plugin 0.2 records when the config sets none. */
export const AUTO_PAUSE_SECONDS = 600;

/** When a lease was acquired, last used, released (if it was) and last written. */
export interface Life {
  acquiredMs: number;
  lastUsedMs: number;
  releasedMs?: number;
  updatedMs: number;
}

/** The ids a lease row and its metadata share. */
export interface LeaseDraft {
  id: string;
  agentId: string;
  executionWorkspaceId: string | null;
  issueId: string | null;
  heartbeatRunId: string;
  marker: string;
}

export interface LeaseSpec {
  life: Life;
  status: string;
  leasePolicy: string;
  providerLeaseId: string | null;
  metadata: unknown;
  provider?: string;
  /** False for rows whose run link was cleared (probe leases). */
  heartbeat?: boolean;
  failureReason?: string | null;
  cleanupStatus?: LedgerLease["cleanupStatus"];
  /** When the host lets the lease lapse; only login sessions carry one. Default null. */
  expiresAt?: string | null;
}

export interface SandboxSpec {
  status: SandboxStatus;
  shape: string;
  rootfs: string;
  life: Life;
  /** Written to the marker path while the sandbox has a disk. */
  marker?: string;
  name?: string;
}

export class DemoBuilder {
  readonly leases: LedgerLease[] = [];
  readonly sandboxes = new Map<DemoAccount, FleetSandbox[]>();
  readonly planted = new Map<Scenario, string[]>();

  constructor(
    readonly random: Random,
    readonly nowMs: number,
    readonly apiUrl: string,
    readonly legacyApiUrl: string,
    readonly pluginId: string,
  ) {}

  plant(scenario: Scenario, id: string): void {
    const ids = this.planted.get(scenario) ?? [];
    ids.push(id);
    this.planted.set(scenario, ids);
  }

  /** A lease a run holds right now: acquired within the last few hours, used moments ago. */
  activeLife(): Life {
    const acquiredMs = this.nowMs - this.random.int(5 * MINUTE, 6 * HOUR);
    const lastUsedMs = this.nowMs - this.random.int(5_000, 4 * MINUTE);
    return { acquiredMs, lastUsedMs, updatedMs: lastUsedMs };
  }

  /** A lease given back `agoMs` before now, after an hour or so of use. */
  releasedAgo(agoMs: number): Life {
    const releasedMs = this.nowMs - agoMs;
    const acquiredMs = releasedMs - this.random.int(3 * MINUTE, HOUR);
    return {
      acquiredMs,
      lastUsedMs: releasedMs - this.random.int(1_000, 60_000),
      releasedMs,
      updatedMs: releasedMs + this.random.int(50, 2_000),
    };
  }

  /** A lease some run held and gave back, within the last thirty days. */
  releasedLife(): Life {
    const acquiredMs = this.nowMs - this.random.int(2 * HOUR, 30 * DAY);
    const releasedMs = Math.min(acquiredMs + this.random.int(3 * MINUTE, 5 * HOUR), this.nowMs - 10 * MINUTE);
    return {
      acquiredMs,
      lastUsedMs: releasedMs - this.random.int(1_000, 60_000),
      releasedMs,
      updatedMs: releasedMs + this.random.int(50, 2_000),
    };
  }

  /** A later life for a lease that resumed the same sandbox after `earlier` was released. */
  resumedLife(earlier: Life, active: boolean): Life {
    const after = (earlier.releasedMs ?? earlier.lastUsedMs) + this.random.int(10 * MINUTE, 2 * HOUR);
    if (active) {
      const acquiredMs = Math.min(after, this.nowMs - 5 * MINUTE);
      const lastUsedMs = this.nowMs - this.random.int(5_000, 4 * MINUTE);
      return { acquiredMs, lastUsedMs, updatedMs: lastUsedMs };
    }
    const acquiredMs = Math.min(after, this.nowMs - 2 * HOUR);
    const lastUsedMs = acquiredMs + this.random.int(3 * MINUTE, HOUR);
    return { acquiredMs, lastUsedMs, updatedMs: lastUsedMs + this.random.int(50, 2_000) };
  }

  draft(): LeaseDraft {
    return {
      id: uuid(this.random),
      agentId: uuid(this.random),
      executionWorkspaceId: this.random.next() < 0.9 ? uuid(this.random) : null,
      issueId: this.random.next() < 0.85 ? uuid(this.random) : null,
      heartbeatRunId: uuid(this.random),
      marker: uuid(this.random),
    };
  }

  policyOf(env: DemoEnvironment): string {
    return env.row.config.reuseLease ? "reuse_by_environment" : "ephemeral";
  }

  /**
   * The flat object the host stores: host keys, the environment config,
   * then the plugin's own metadata. `overrides` replaces fields, e.g. an older apiUrl.
   */
  ownedMetadata(env: DemoEnvironment, draft: LeaseDraft, overrides: Record<string, unknown> = {}) {
    const config = env.row.config;
    const metadata: Record<string, unknown> = {
      agentId: draft.agentId,
      driver: "sandbox",
      executionWorkspaceMode: draft.executionWorkspaceId ? "isolated" : "shared",
      pluginId: this.pluginId,
      pluginKey: "paperclip-plugin-createos",
      sandboxProviderPlugin: true,
      provider: "createos",
      apiUrl: config.apiUrl,
      companyId: env.company.id,
      environmentId: env.row.id,
      remoteCwd: "/paperclip-workspace",
      shellCommand: "bash",
      marker: draft.marker,
      shape: config.shape,
      rootfs: config.rootfs,
      region: config.region,
      reuseLease: config.reuseLease,
      timeoutMs: config.timeoutMs,
    };
    if (config.reuseLease) {
      metadata.reusableSandboxLease = {
        version: 1,
        companyId: env.company.id,
        environmentId: env.row.id,
        executionWorkspaceId: draft.executionWorkspaceId,
        agentId: draft.agentId,
        adapterType: "claude_local",
        provider: "createos",
        runtimeFingerprint: hex(this.random, 16),
      };
    }
    return Object.assign(metadata, overrides);
  }

  /**
   * What plugin 0.2 and later record on top: the adapter, the egress allowlists (none configured here)
   * and the auto-pause window, which applies only to a reusable lease with an issue or an execution
   * workspace (null otherwise); the rootfs is the one resolved for the adapter (no per-adapter map here).
   */
  newerPluginMetadata(env: DemoEnvironment, draft: LeaseDraft, overrides: Record<string, unknown> = {}) {
    const config = env.row.config;
    const windowApplies =
      config.reuseLease && (draft.issueId !== null || draft.executionWorkspaceId !== null);
    return this.ownedMetadata(env, draft, {
      adapterType: "claude_local",
      baseEgressAllowlist: [],
      effectiveEgressAllowlist: [],
      autoPauseAfterSeconds: windowApplies ? AUTO_PAUSE_SECONDS : null,
      ...overrides,
    });
  }

  lease(env: DemoEnvironment, draft: LeaseDraft, spec: LeaseSpec): LedgerLease {
    const { life } = spec;
    const row: LedgerLease = {
      id: draft.id,
      companyId: env.company.id,
      environmentId: env.row.id,
      executionWorkspaceId: draft.executionWorkspaceId,
      issueId: draft.issueId,
      heartbeatRunId: spec.heartbeat === false ? null : draft.heartbeatRunId,
      status: spec.status,
      leasePolicy: spec.leasePolicy,
      provider: spec.provider ?? "createos",
      providerLeaseId: spec.providerLeaseId,
      acquiredAt: iso(life.acquiredMs),
      lastUsedAt: iso(life.lastUsedMs),
      expiresAt: spec.expiresAt ?? null,
      releasedAt: life.releasedMs === undefined ? null : iso(life.releasedMs),
      failureReason: spec.failureReason ?? null,
      cleanupStatus:
        spec.cleanupStatus !== undefined
          ? spec.cleanupStatus
          : life.releasedMs === undefined
            ? null
            : "success",
      metadata: spec.metadata,
      createdAt: iso(life.acquiredMs),
      updatedAt: iso(life.updatedMs),
    };
    this.leases.push(row);
    return row;
  }

  /** A sandbox at the account, created as the lease was acquired; returns its id. */
  sandbox(account: DemoAccount, spec: SandboxSpec): string {
    const { life } = spec;
    const createdMs = life.acquiredMs - this.random.int(1_000, 4_000);
    const id = sandboxId(this.random, createdMs);
    const settledMs = (life.releasedMs ?? life.lastUsedMs) + this.random.int(200, 900);
    const sandbox: FleetSandbox = {
      id,
      status: spec.status,
      shape: spec.shape,
      rootfs: spec.rootfs,
      created_at: iso(createdMs),
    };
    if (spec.name) sandbox.name = spec.name;
    if (spec.status !== "creating" && spec.status !== "failed") sandbox.running_at = iso(createdMs + 210);
    if (spec.status === "paused") sandbox.paused_at = iso(settledMs);
    if (spec.status === "destroyed") sandbox.destroyed_at = iso(settledMs);
    const hasDisk = spec.status !== "destroyed" && spec.status !== "failed";
    if (hasDisk && spec.marker !== undefined) sandbox.files = { [MARKER_PATH]: spec.marker };
    const list = this.sandboxes.get(account) ?? [];
    list.push(sandbox);
    this.sandboxes.set(account, list);
    return id;
  }

  /** An id the control plane would mint but that no account in this world holds. */
  unseenSandboxId(life: Life): string {
    return sandboxId(this.random, life.acquiredMs - this.random.int(1_000, 4_000));
  }
}

const DAY_PREFIXES = new Map<number, number[]>();
const DIGIT = "0".charCodeAt(0);

/**
 * `Date#toISOString` for whole milliseconds, as a flat string with the date part cached: a
 * 20,000-row world formats some 150,000 timestamps, and this keeps generation inside its budget.
 */
export function iso(ms: number): string {
  const day = Math.floor(ms / DAY);
  let prefix = DAY_PREFIXES.get(day);
  if (prefix === undefined) {
    prefix = Array.from(new Date(day * DAY).toISOString().slice(0, 11), (char) => char.charCodeAt(0));
    DAY_PREFIXES.set(day, prefix);
  }
  const inDay = ms - day * DAY;
  const fields = [
    Math.floor(inDay / HOUR),
    Math.floor((inDay % HOUR) / MINUTE),
    Math.floor((inDay % MINUTE) / 1000),
  ];
  const codes = [...prefix];
  for (const [i, field] of fields.entries()) {
    if (i > 0) codes.push(58); // ":"
    codes.push(DIGIT + Math.floor(field / 10), DIGIT + (field % 10));
  }
  const millis = inDay % 1000;
  codes.push(
    46,
    DIGIT + Math.floor(millis / 100),
    DIGIT + (Math.floor(millis / 10) % 10),
    DIGIT + (millis % 10),
    90,
  );
  return String.fromCharCode(...codes);
}
