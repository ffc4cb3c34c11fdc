import type { SandboxListing, SourceSnapshot } from "../../../../shared/domain/inventory.js";
import { generateDemoWorld } from "../../../../simulator/index.js";
import { parseEnvironments, parseLeaseRows } from "../../leases/rows.js";

/**
 * A generated world with every verdict the generator plants (foreign, stale, leaking, shared, orphans,
 * unknown statuses), its companies' names, and one credential whose listing failed, read by the real row
 * parser; the listings are built from the fleet as CreateOS would list it.
 */
export function generatedWorldInput({
  size = 3000,
  seed = "reconcile-world",
  environments: environmentCount = 20,
  accounts = 3,
}: {
  size?: number;
  seed?: string;
  environments?: number;
  accounts?: number;
} = {}) {
  const world = generateDemoWorld({ size, seed, environments: environmentCount, accounts });
  const environments = parseEnvironments(world.ledger.environments, "ledger", "environments");
  const leases = parseLeaseRows(world.ledger.leases, "ledger", "leases");
  const snapshots: SourceSnapshot[] = [
    {
      sourceId: "ledger",
      environments: environments.rows,
      leases: leases.rows,
      companies: world.companies,
      problems: [...environments.problems, ...leases.problems],
      gaps: [],
    },
  ];
  const accountByKey = new Map(world.fleet.accounts.map((account) => [account.apiKey, account]));
  const listings: SandboxListing[] = world.config.credentials.map((credential, at) => {
    const account = accountByKey.get(world.keys[credential.apiKeyEnv]!)!;
    if (at === world.config.credentials.length - 1) {
      return {
        origin: credential.origin,
        credential: credential.name,
        outcome: { ok: false, reason: "server-error", httpStatus: 503 },
      };
    }
    return {
      origin: credential.origin,
      credential: credential.name,
      outcome: {
        ok: true,
        observedAt: "2026-11-30T12:00:00.000Z",
        sandboxes: (account.sandboxes ?? []).map((sandbox) => ({
          id: sandbox.id,
          status: sandbox.status,
          ...(sandbox.shape ? { shape: sandbox.shape } : {}),
        })),
      },
    };
  });
  return { snapshots, listings, now: new Date("2026-11-30T12:00:00Z"), requests: 42 };
}
