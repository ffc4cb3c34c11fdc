import type { SandboxStatus } from "../catalog.js";
import { type DemoBuilder, iso, type LeaseDraft, type LeaseSpec, type Life } from "./builder.js";
import { type Company, type DemoEnvironment, hex, otherShape, uuid } from "./identities.js";
import type { LedgerLease } from "./ledger.js";
import type { Scenario } from "./scenario-names.js";

// Every situation a lease console must recognise, planted as ledger rows and fleet
// sandboxes that produce it. Each planter makes rows that are that case and nothing more alarming:
// a foreign row's sandbox is paused, so it is not also leaking (unless a run holds it); a shared pair
// never leaves a released row over a running sandbox. Counts scale with the world; never fewer than three.

export { SCENARIOS, type Scenario } from "./scenario-names.js";

export interface PlantContext {
  b: DemoBuilder;
  env: DemoEnvironment;
  /** Which occurrence of the scenario this is; planters rotate their variants by it. */
  n: number;
  companies: readonly Company[];
  environments: readonly DemoEnvironment[];
}

export interface Planter {
  scenario: Scenario;
  /**
   * Share of the world's rows (pairs, for `shared`); the floor is three. Rows other planters plant for
   * this scenario through `alsoPlants` count towards it.
   */
  weight: number;
  /** Scenarios every row of this planter is also a case of. */
  alsoPlants?: readonly Scenario[];
  plant(ctx: PlantContext): void;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Origin of the production API: no credential in the demo config names it, so rows there are unknown. */
export const UNCONFIGURED_API_URL = "https://api.sb.createos.sh";

/** A run holds it right now: active row with a run, running sandbox with the marker. */
export function plantOwnedRunning(
  { b, env }: Pick<PlantContext, "b" | "env">,
  draft = b.draft(),
): LedgerLease {
  const life = b.activeLife();
  const { shape, rootfs } = env.row.config;
  const sandbox = b.sandbox(env.account, { status: "running", shape, rootfs, life, marker: draft.marker });
  const row = b.lease(env, draft, {
    life,
    status: "active",
    leasePolicy: b.policyOf(env),
    providerLeaseId: sandbox,
    metadata: b.ownedMetadata(env, draft),
  });
  b.plant("owned-running", row.id);
  b.plant("in-use", row.id);
  return row;
}

/** Released reusable lease over a paused sandbox: the normal warm state, not a leak. */
export function plantOwnedPausedWarm({ b, env }: Pick<PlantContext, "b" | "env">): LedgerLease {
  const row = released(b, env, {});
  b.plant("owned-paused-warm", row.id);
  return row;
}

interface ReleasedOptions {
  draft?: LeaseDraft;
  /** Status of the sandbox at the account; omit for a row whose sandbox is not in this world. */
  sandboxStatus?: SandboxStatus | "none";
  metadata?: (draft: LeaseDraft, sandboxId: string) => unknown;
  shape?: string;
  rootfs?: string;
  marker?: string;
  lease?: Partial<LeaseSpec>;
}

/** A row some run gave back, and (by default) its paused sandbox with the marker inside. */
function released(b: DemoBuilder, env: DemoEnvironment, options: ReleasedOptions): LedgerLease {
  const draft = options.draft ?? b.draft();
  const life = options.lease?.life ?? b.releasedLife();
  const status = options.sandboxStatus ?? "paused";
  const sandboxId =
    status === "none"
      ? b.unseenSandboxId(life)
      : b.sandbox(env.account, {
          status,
          shape: options.shape ?? env.row.config.shape,
          rootfs: options.rootfs ?? env.row.config.rootfs,
          life,
          marker: options.marker ?? draft.marker,
        });
  return b.lease(env, draft, {
    status: "released",
    leasePolicy: b.policyOf(env),
    providerLeaseId: sandboxId,
    metadata: options.metadata ? options.metadata(draft, sandboxId) : b.ownedMetadata(env, draft),
    ...options.lease,
    life,
  });
}

function otherCompany(ctx: PlantContext): Company {
  const index = ctx.companies.findIndex((company) => company.id === ctx.env.company.id);
  return ctx.companies[(index + 1 + (ctx.n % (ctx.companies.length - 1))) % ctx.companies.length] as Company;
}

/** Another environment of the same company if there is one, else one that has since been deleted. */
function otherEnvironmentId(ctx: PlantContext): string {
  const siblings = ctx.environments.filter(
    (other) => other.company.id === ctx.env.company.id && other.row.id !== ctx.env.row.id,
  );
  return siblings.length > 0
    ? (siblings[ctx.n % siblings.length] as DemoEnvironment).row.id
    : uuid(ctx.b.random);
}

function e2bSandboxId(ctx: PlantContext): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return `i${Array.from({ length: 19 }, () => ctx.b.random.pick([...alphabet])).join("")}`;
}

export const PLANTERS: Planter[] = [
  {
    scenario: "foreign-company",
    weight: 0.012,
    plant(ctx) {
      const { b, env } = ctx;
      const companyId = otherCompany(ctx).id;
      if (ctx.n % 3 === 2) {
        plantHeldForeign(ctx, "foreign-company", { companyId });
        return;
      }
      const row = released(b, env, { metadata: (draft) => b.ownedMetadata(env, draft, { companyId }) });
      b.plant("foreign-company", row.id);
    },
  },
  {
    scenario: "foreign-environment",
    weight: 0.01,
    plant(ctx) {
      const { b, env } = ctx;
      const environmentId = otherEnvironmentId(ctx);
      if (ctx.n % 3 === 2) {
        plantHeldForeign(ctx, "foreign-environment", { environmentId });
        return;
      }
      const row = released(b, env, { metadata: (draft) => b.ownedMetadata(env, draft, { environmentId }) });
      b.plant("foreign-environment", row.id);
    },
  },
  {
    scenario: "foreign-provider",
    weight: 0.008,
    plant(ctx) {
      const { b, env, n } = ctx;
      if (n % 2 === 0) {
        // Another provider's lease under a CreateOS environment: its sandbox lives at e2b, not here.
        const draft = b.draft();
        const life = b.releasedLife();
        const row = b.lease(env, draft, {
          life,
          status: "released",
          leasePolicy: "ephemeral",
          provider: "e2b",
          providerLeaseId: e2bSandboxId(ctx),
          metadata: {
            agentId: draft.agentId,
            driver: "sandbox",
            pluginKey: "paperclip-plugin-e2b",
            sandboxProviderPlugin: true,
            provider: "e2b",
            apiUrl: "https://api.e2b.dev",
            companyId: env.company.id,
            environmentId: env.row.id,
            template: "base",
            timeoutMs: env.row.config.timeoutMs,
          },
        });
        b.plant("foreign-provider", row.id);
        return;
      }
      // The generic plugin driver nests the plugin's metadata and names itself plugin:<key>:<driver>.
      const provider = "plugin:paperclip-plugin-createos:createos";
      const row = released(b, env, {
        lease: { provider },
        metadata: (draft) => ({
          driver: "plugin",
          provider,
          pluginKey: "paperclip-plugin-createos",
          driverKey: "createos",
          providerMetadata: b.ownedMetadata(env, draft),
        }),
      });
      b.plant("foreign-provider", row.id);
    },
  },
  {
    scenario: "api-url-changed",
    weight: 0.015,
    plant({ b, env }) {
      const row = released(b, env, {
        metadata: (draft) => b.ownedMetadata(env, draft, { apiUrl: b.legacyApiUrl }),
      });
      b.plant("api-url-changed", row.id);
    },
  },
  {
    scenario: "metadata-missing",
    weight: 0.008,
    plant({ b, env, n }) {
      const variants = [
        () => null,
        (_draft: LeaseDraft, sandboxId: string) => `createos lease ${sandboxId}`,
        (draft: LeaseDraft) => ({ providerMetadata: b.ownedMetadata(env, draft) }),
      ];
      const row = released(b, env, { metadata: variants[n % variants.length] });
      b.plant("metadata-missing", row.id);
    },
  },
  {
    scenario: "no-sandbox-id",
    weight: 0.01,
    plant({ b, env, n }) {
      const draft = b.draft();
      const variant = (["failed", "active", "expired", "released"] as const)[n % 4];
      const row = b.lease(env, draft, {
        // Held by a run whose acquire recorded no sandbox: its workspace and every command fail now.
        life: variant === "active" ? b.activeLife() : b.releasedLife(),
        status: variant as string,
        leasePolicy: b.policyOf(env),
        providerLeaseId: null,
        // An expired resume hands back `{ providerLeaseId: null, metadata: { expired: true } }`.
        metadata: b.ownedMetadata(env, draft, variant === "expired" ? { expired: true } : {}),
        failureReason:
          { failed: "adapter_or_run_failure", expired: "resume_failed" }[variant as string] ?? null,
      });
      b.plant("no-sandbox-id", row.id);
      if (variant === "active") {
        b.plant("in-use", row.id);
        b.plant("run-failing", row.id);
      }
    },
  },
  {
    scenario: "stale-config",
    weight: 0.015,
    plant({ b, env, n }) {
      const config = env.row.config;
      const drift = [
        { shape: otherShape(b.random, config.shape) },
        { rootfs: config.rootfs === "node" ? "devbox:1" : "node" },
        // Acquired before the environment pinned a region: the plugin recorded null.
        { region: null },
      ][n % 3] as { shape?: string; rootfs?: string; region?: null };
      const row = released(b, env, {
        shape: drift.shape,
        rootfs: drift.rootfs,
        metadata: (draft) => b.ownedMetadata(env, draft, drift),
      });
      b.plant("stale-config", row.id);
    },
  },
  {
    scenario: "malformed-marker",
    weight: 0.005,
    plant({ b, env }) {
      const marker = "not-a-uuid";
      const row = released(b, env, { marker, metadata: (draft) => b.ownedMetadata(env, draft, { marker }) });
      b.plant("malformed-marker", row.id);
    },
  },
  {
    scenario: "gone",
    weight: 0.02,
    plant({ b, env, n }) {
      const variant = n % 3;
      const row = released(b, env, {
        sandboxStatus: variant === 2 ? "failed" : "destroyed",
        lease:
          variant === 1
            ? { status: "expired", failureReason: "lease_destroyed", cleanupStatus: "success" }
            : {},
      });
      b.plant("gone", row.id);
    },
  },
  {
    scenario: "not-visible",
    weight: 0.01,
    plant({ b, env, n }) {
      const row = released(b, env, { sandboxStatus: "none", lease: n % 2 ? { status: "expired" } : {} });
      b.plant("not-visible", row.id);
    },
  },
  {
    scenario: "unknown",
    weight: 0.006,
    plant({ b, env }) {
      const row = released(b, env, {
        sandboxStatus: "none",
        metadata: (draft) => b.ownedMetadata(env, draft, { apiUrl: UNCONFIGURED_API_URL }),
      });
      b.plant("unknown", row.id);
    },
  },
  {
    scenario: "leaking",
    weight: 0.02,
    plant({ b, env, n }) {
      const variants: Partial<LeaseSpec>[] = [
        // The worker was down at release: marked released anyway, cleanup failed.
        { status: "released", cleanupStatus: "failed" },
        { status: "expired", failureReason: "lease_expired", cleanupStatus: "success" },
        { status: "failed", failureReason: "adapter_or_run_failure", cleanupStatus: "failed" },
        // Newer plugin versions keep a released reusable sandbox running and rely on auto-pause.
        { status: "released", cleanupStatus: "success" },
      ];
      const row = released(b, env, { sandboxStatus: "running", lease: variants[n % variants.length] });
      b.plant("leaking", row.id);
    },
  },
  {
    scenario: "host-cleanup",
    weight: 0.006,
    plant({ b, env, n }) {
      const draft = b.draft();
      const life = b.releasedLife();
      const { shape, rootfs } = env.row.config;
      const status = n % 2 ? "paused" : "running";
      const sandbox = b.sandbox(env.account, { status, shape, rootfs, life, marker: draft.marker });
      const tenYearsMs = 10 * 365 * 24 * 3_600_000;
      const row = b.lease(env, draft, {
        life: { ...life, releasedMs: undefined },
        status: "pending_cleanup",
        leasePolicy: b.policyOf(env),
        providerLeaseId: sandbox,
        failureReason: n % 2 ? "teardown_failed" : "orphaned_active_lease_recovered",
        cleanupStatus: "pending",
        // The sweep's claim, far in the future so it is still "in flight" whenever the demo runs.
        metadata: b.ownedMetadata(env, draft, {
          pendingCleanupAttemptId: uuid(b.random),
          pendingCleanupInFlight: true,
          pendingCleanupLeaseExpiresAtMs: b.nowMs + tenYearsMs,
          pendingCleanupRetryAfterMs: b.nowMs + 5 * 60_000,
          pendingCleanupRetryAttempts: 1 + (n % 4),
        }),
      });
      b.plant("host-cleanup", row.id);
    },
  },
  {
    scenario: "shared",
    weight: 0.006,
    plant({ b, env, n }) {
      // One sandbox, two rows: a reusable lease resumed by a later run keeps the marker.
      const draft = b.draft();
      const first = b.releasedLife();
      const active = n % 2 === 1;
      const second = b.resumedLife(first, active);
      const { shape, rootfs } = env.row.config;
      const sandbox = b.sandbox(env.account, {
        status: active ? "running" : "paused",
        shape,
        rootfs,
        life: first,
        marker: draft.marker,
      });
      const metadata = b.ownedMetadata(env, draft);
      const later = { ...b.draft(), marker: draft.marker, agentId: draft.agentId };
      const older = b.lease(env, draft, {
        life: active ? { ...first, releasedMs: undefined } : first,
        status: active ? "retained" : "released",
        leasePolicy: active ? "retain_on_failure" : b.policyOf(env),
        providerLeaseId: sandbox,
        metadata,
        failureReason: active ? "adapter_or_run_failure" : null,
        cleanupStatus: active ? null : "success",
      });
      const newer = b.lease(env, later, {
        life: second,
        status: active ? "active" : "retained",
        leasePolicy: active ? b.policyOf(env) : "retain_on_failure",
        providerLeaseId: sandbox,
        metadata: { ...metadata, resumedLease: true },
        failureReason: active ? null : "adapter_or_run_failure",
        cleanupStatus: null,
      });
      b.plant("shared", older.id);
      b.plant("shared", newer.id);
      if (active) {
        b.plant("owned-running", newer.id);
        b.plant("in-use", newer.id);
      } else {
        b.plant("owned-paused-warm", older.id);
      }
    },
  },
  {
    scenario: "login-session",
    weight: 0.006,
    plant({ b, env, n }) {
      // Paperclip's login services acquire a lease with no run, no issue and no execution workspace, and an
      // expiry an hour out (or none, for a flow that passes none); a person is signed in on the sandbox.
      const draft = { ...b.draft(), issueId: null, executionWorkspaceId: null };
      const life = b.activeLife();
      const { shape, rootfs } = env.row.config;
      const sandbox = b.sandbox(env.account, {
        status: "running",
        shape,
        rootfs,
        life,
        marker: draft.marker,
      });
      const metadata: Record<string, unknown> =
        n % 3 === 2 ? b.newerPluginMetadata(env, draft) : b.ownedMetadata(env, draft);
      delete metadata.reusableSandboxLease;
      const row = b.lease(env, draft, {
        life,
        status: "active",
        leasePolicy: "ephemeral",
        providerLeaseId: sandbox,
        metadata,
        heartbeat: false,
        expiresAt: n % 2 === 0 ? iso(b.nowMs + HOUR) : null,
      });
      b.plant("login-session", row.id);
      b.plant("in-use", row.id);
    },
  },
  {
    scenario: "warm-reusable",
    weight: 0.006,
    plant({ b, env }) {
      // Plugin 0.2 keeps a released reusable sandbox running for CreateOS to pause after its window.
      const draft = draftWithIssue(b);
      const row = released(b, env, {
        draft,
        sandboxStatus: "running",
        metadata: () => b.newerPluginMetadata(env, draft),
        lease: { life: b.releasedAgo(b.random.int(MINUTE, 5 * MINUTE)) },
      });
      b.plant("warm-reusable", row.id);
    },
  },
  {
    scenario: "warm-expired",
    weight: 0.006,
    alsoPlants: ["leaking"],
    plant({ b, env }) {
      // The same, released longer ago than its window and still running: it should have paused by now.
      const draft = draftWithIssue(b);
      const row = released(b, env, {
        draft,
        sandboxStatus: "running",
        metadata: () => b.newerPluginMetadata(env, draft),
        lease: { life: b.releasedAgo(b.random.int(20 * MINUTE, 6 * HOUR)) },
      });
      b.plant("warm-expired", row.id);
      b.plant("leaking", row.id);
    },
  },
  {
    scenario: "api-url-not-origin",
    weight: 0.006,
    plant({ b, env, n }) {
      // Recorded as typed, not as the origin the plugin's parse returns: every call on it fails. The
      // sandbox lives at that origin.
      const apiUrl = `${env.row.config.apiUrl}${n % 2 ? "/" : "/v1"}`;
      const row = released(b, env, { metadata: (draft) => b.ownedMetadata(env, draft, { apiUrl }) });
      b.plant("api-url-not-origin", row.id);
    },
  },
  {
    scenario: "config-rejected",
    weight: 0.006,
    plant({ b, env, n }) {
      // A recorded config every plugin generation's parse rejects, so every call on the lease throws.
      const variant = n % 3;
      const row = released(b, env, {
        metadata: (draft) => {
          const metadata: Record<string, unknown> = b.ownedMetadata(env, draft);
          if (variant === 0) metadata.timeoutMs = 0;
          else if (variant === 1) delete metadata.shape;
          else metadata.timeoutMs = 86_400_001;
          return metadata;
        },
      });
      b.plant("config-rejected", row.id);
    },
  },
];

/**
 * An active row a run holds right now whose metadata names another company or environment: the plugin
 * refuses to realize the run's workspace and every command on it ("CreateOS workspace requires a lease
 * from this environment."), so the run is failing now. Its sandbox runs for that run: not a leak.
 */
function plantHeldForeign(
  ctx: PlantContext,
  scenario: "foreign-company" | "foreign-environment",
  overrides: { companyId?: string; environmentId?: string },
): void {
  const { b, env } = ctx;
  const draft = b.draft();
  const life = b.activeLife();
  const { shape, rootfs } = env.row.config;
  const sandbox = b.sandbox(env.account, { status: "running", shape, rootfs, life, marker: draft.marker });
  const row = b.lease(env, draft, {
    life,
    status: "active",
    leasePolicy: b.policyOf(env),
    providerLeaseId: sandbox,
    metadata: b.ownedMetadata(env, draft, overrides),
  });
  b.plant(scenario, row.id);
  b.plant("in-use", row.id);
  b.plant("run-failing", row.id);
}

/** A draft that names an issue, so plugin 0.2's auto-pause window applies to its lease. */
function draftWithIssue(b: DemoBuilder): LeaseDraft {
  const draft = b.draft();
  return draft.issueId === null && draft.executionWorkspaceId === null
    ? { ...draft, issueId: uuid(b.random) }
    : draft;
}

/** Sandboxes someone made by hand, or a lost create left behind: listed, but named by no row. */
export function plantUntracked(b: DemoBuilder, account: DemoEnvironment["account"], n: number): void {
  const statuses: SandboxStatus[] = ["running", "paused", "running", "error", "paused"];
  const life: Life = b.releasedLife();
  const name = `${b.random.pick(["scratch", "debug", "manual", "spike", "tmp"])}-${hex(b.random, 2)}`;
  const id = b.sandbox(account, {
    status: statuses[n % statuses.length] as SandboxStatus,
    shape: b.random.pick(["s-1vcpu-1gb", "s-2vcpu-4gb", "s-1vcpu-256mb"]),
    rootfs: "devbox:1",
    life,
    name,
  });
  b.plant("untracked", id);
}
