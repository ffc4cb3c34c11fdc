import { createHash } from "node:crypto";
import { DEFAULT_ROOTFS, findShape } from "../catalog.js";
import type { Fleet, FleetAccount, FleetSandbox } from "../fleet.js";
import { isTerminal, scheduleSeededTransition, settle } from "./lifecycle.js";
import { nameForId } from "./names.js";
import type { SandboxRecord } from "./sandbox.js";
import { Workspace } from "./workspace.js";

// The documented median time-to-interactive of a create.
const SPAWN_MS = 210;

export interface NewSandbox {
  id: string;
  shape: string;
  rootfs: string;
  name: string;
  disk_mib?: number;
  ingress_enabled: boolean;
  auto_pause_after_seconds?: number;
  envs?: string[];
}

/** One tenant: an API key, the user it authenticates, and that user's sandboxes in creation order. */
export interface Account {
  userId: string;
  apiKey: string;
  sandboxes: SandboxRecord[];
  byId: Map<string, SandboxRecord>;
}

/**
 * Every account's sandboxes, built from a fleet and rebuilt from it on reset. Sandbox ids are
 * unique across accounts: a second account may never see (or mint) the same id.
 */
export class World {
  readonly region: string;
  private accounts = new Map<string, Account>();
  private ids = new Set<string>();
  private addressesHanded = 0;

  constructor(
    private readonly fleet: Fleet,
    private readonly transitionMs: number,
    private readonly now: () => number,
  ) {
    this.region = fleet.region;
    this.reset();
  }

  reset(): void {
    this.accounts = new Map();
    this.ids = new Set();
    this.addressesHanded = 0;
    const nowMs = this.now();
    for (const seed of this.fleet.accounts) {
      const account = this.addAccount(seed);
      for (const sandbox of seed.sandboxes) {
        const record = this.fromFleet(sandbox, account, nowMs);
        scheduleSeededTransition(record, nowMs, this.transitionMs);
        this.adopt(account, record);
      }
    }
  }

  accountForKey(apiKey: string): Account | undefined {
    return this.accounts.get(apiKey);
  }

  allAccounts(): Account[] {
    return [...this.accounts.values()];
  }

  /** The caller's sandbox, settled to now; another account's sandbox is as absent as a missing one. */
  find(account: Account, id: string): SandboxRecord | undefined {
    const sandbox = account.byId.get(id);
    return sandbox && settle(sandbox, this.now());
  }

  /** Every sandbox of the account, settled to now, in creation order. */
  list(account: Account): SandboxRecord[] {
    const nowMs = this.now();
    for (const sandbox of account.sandboxes) settle(sandbox, nowMs);
    return account.sandboxes;
  }

  isIdTaken(id: string): boolean {
    return this.ids.has(id);
  }

  isNameInUse(account: Account, name: string): boolean {
    return this.list(account).some((sandbox) => sandbox.name === name && !isTerminal(sandbox.status));
  }

  /** A sandbox booted by `POST /v1/sandboxes`: the create is synchronous, so it is born running. */
  create(account: Account, spec: NewSandbox): SandboxRecord {
    const at = new Date(this.now()).toISOString();
    const sandbox: SandboxRecord = {
      id: spec.id,
      status: "running",
      ...sizing(spec.shape, spec.disk_mib),
      rootfs: spec.rootfs,
      region: this.region,
      name: spec.name,
      ip: this.nextAddress(),
      ingress_enabled: spec.ingress_enabled,
      created_at: at,
      created_by: account.userId,
      running_at: at,
      spawn_ms: SPAWN_MS,
      auto_pause_after_seconds: spec.auto_pause_after_seconds,
      envs: spec.envs,
      workspace: new Workspace(),
    };
    this.adopt(account, sandbox);
    return sandbox;
  }

  private adopt(account: Account, sandbox: SandboxRecord): void {
    account.sandboxes.push(sandbox);
    account.byId.set(sandbox.id, sandbox);
    this.ids.add(sandbox.id);
  }

  /** Private addresses in 10.0.0.0/8, handed out in order so a seeded world is stable. */
  private nextAddress(): string {
    const n = ++this.addressesHanded + 1;
    return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  }

  private addAccount(seed: FleetAccount): Account {
    const account: Account = {
      userId: seed.userId ?? defaultUserId(seed.apiKey),
      apiKey: seed.apiKey,
      sandboxes: [],
      byId: new Map(),
    };
    this.accounts.set(seed.apiKey, account);
    return account;
  }

  private fromFleet(seed: FleetSandbox, account: Account, nowMs: number): SandboxRecord {
    const createdAt = seed.created_at ?? new Date(nowMs).toISOString();
    return {
      id: seed.id,
      status: seed.status,
      ...sizing(seed.shape, seed.disk_mib),
      rootfs: seed.rootfs ?? DEFAULT_ROOTFS,
      region: this.region,
      name: seed.name ?? nameForId(seed.id),
      ip: seed.ip ?? this.nextAddress(),
      ingress_enabled: seed.ingress_enabled ?? false,
      created_at: createdAt,
      created_by: account.userId,
      running_at: seed.running_at ?? (seed.status === "creating" ? undefined : createdAt),
      paused_at: seed.paused_at ?? (seed.status === "paused" ? createdAt : undefined),
      last_resumed_at: seed.last_resumed_at,
      destroyed_at: seed.destroyed_at ?? (seed.status === "destroyed" ? createdAt : undefined),
      auto_pause_after_seconds: seed.auto_pause_after_seconds,
      workspace: new Workspace(seed.status === "destroyed" ? {} : (seed.files ?? {})),
    };
  }
}

/** What the shape decides. Fleets and create requests are checked against the catalog before this. */
function sizing(shapeId: string, diskMib: number | undefined) {
  const shape = findShape(shapeId);
  if (!shape) throw new Error(`unknown shape ${shapeId}`);
  return {
    shape: shape.id,
    vcpu: shape.vcpu,
    mem_mib: shape.mem_mib,
    disk_mib: diskMib ?? shape.default_disk_mib,
  };
}

/** A stable user id that does not reveal the key it was derived from. */
function defaultUserId(apiKey: string): string {
  return `usr_${createHash("sha256").update(apiKey).digest("hex").slice(0, 16)}`;
}
