import type { LeaseVerdict, SandboxListing } from "../../shared/domain/inventory.js";
import { EnvironmentSchema, LeaseRowSchema } from "../../shared/domain/paperclip.js";
import { reconcile } from "../../shared/domain/reconcile.js";
import type { DemoWorld } from "./generate.js";

// For the demo's tests: a generated world judged by the console's own rules, as a ledger source read
// at the world's "now" with every credential's listing answered from the fleet. The tests then check
// that each planted row is judged as the case it was planted for, not only that its facts hold.

export interface JudgedWorld {
  verdicts: Map<string, LeaseVerdict>;
  /** Sandbox ids the rules call untracked. */
  untracked: Set<string>;
}

export function judgeWorld(world: DemoWorld, now: string): JudgedWorld {
  const accountByKey = new Map(world.fleet.accounts.map((account) => [account.apiKey, account]));
  const listings: SandboxListing[] = world.config.credentials.map((credential) => {
    const account = accountByKey.get(world.keys[credential.apiKeyEnv] ?? "");
    return {
      origin: credential.origin,
      credential: credential.name,
      outcome: {
        ok: true,
        observedAt: now,
        sandboxes: (account?.sandboxes ?? []).map((sandbox) => ({
          id: sandbox.id,
          status: sandbox.status,
          ...(sandbox.shape ? { shape: sandbox.shape } : {}),
        })),
      },
    };
  });
  const inventory = reconcile({
    snapshots: [
      {
        sourceId: "ledger",
        environments: world.ledger.environments.map((env) => EnvironmentSchema.parse(env)),
        leases: world.ledger.leases.map((row) => LeaseRowSchema.parse(row)),
        companies: [],
        problems: [],
        gaps: [],
      },
    ],
    listings,
    now: new Date(now),
    requests: 0,
  });
  return {
    verdicts: new Map(inventory.leases.map((classified) => [classified.lease.id, classified.verdict])),
    untracked: new Set(inventory.untracked.map((sandbox) => sandbox.sandboxId)),
  };
}
