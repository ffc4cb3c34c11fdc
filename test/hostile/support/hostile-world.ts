import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { fitting, HOSTILE_STRINGS, type HostileString, PROTOTYPE_KEYS } from "../corpus.js";

/**
 * A ledger in which every hostile string sits where an attacker who can write lease rows would put it:
 * environment names, lease ids, row statuses, failure reasons, company ids, metadata values and metadata
 * keys (`__proto__`, `constructor`, `prototype` included, as real own keys of the JSON). The rows point at
 * a simulator whose account lists their sandboxes, so they come out of a scan with real verdicts.
 */

export const HOSTILE_KEY = "sk-hostile-0a1b2c3d4e5f";
export const HOSTILE_KEY_ENV = "LK_HOSTILE_KEY";
export const COMPANY = "company-hostile";

export interface PlacedString {
  /** Which corpus entry. */
  name: string;
  value: string;
  /** Where it was put. */
  where:
    | "environment-name"
    | "lease-id"
    | "status"
    | "failure-reason"
    | "company-id"
    | "metadata-value"
    | "metadata-key";
  leaseId: string;
  environmentId: string;
}

export interface HostileWorld {
  sim: Simulator;
  dir: string;
  configPath: string;
  env: NodeJS.ProcessEnv;
  placed: PlacedString[];
  leaseIds: string[];
  close(): Promise<void>;
}

/** An object with the given own keys, `__proto__` included (assignment would set the prototype instead). */
export function ownKeys(entries: readonly [string, unknown][]): Record<string, unknown> {
  const target: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return target;
}

export async function buildHostileWorld(): Promise<HostileWorld> {
  const sandboxIds: string[] = [];
  const sandboxFor = (n: number) => {
    const id = `sb-hostile-${String(n).padStart(4, "0")}`;
    sandboxIds.push(id);
    return id;
  };
  // The simulator starts first: rows must record its URL.
  const count = HOSTILE_STRINGS.length * 2 + 2;
  const fleetIds = Array.from({ length: count }, (_, n) => `sb-hostile-${String(n).padStart(4, "0")}`);
  const sim = await startSimulator({
    fleet: {
      accounts: [
        {
          apiKey: HOSTILE_KEY,
          sandboxes: fleetIds.map((id) => ({
            id,
            status: "running",
            shape: "s-1vcpu-1gb",
            rootfs: "devbox:1",
          })),
        },
      ],
    },
    rateLimitPerMinute: 0,
    transitionMs: 20,
  });
  const dir = mkdtempSync(path.join(tmpdir(), "leasekeeper-hostile-"));
  const placed: PlacedString[] = [];
  const environments: Record<string, unknown>[] = [];
  const leases: Record<string, unknown>[] = [];

  const environment = (id: string, name: string) => {
    environments.push({
      id,
      companyId: COMPANY,
      name,
      driver: "sandbox",
      status: "active",
      config: {
        provider: "createos",
        apiUrl: sim.url,
        shape: "s-1vcpu-1gb",
        rootfs: "devbox:1",
        reuseLease: true,
      },
    });
    return id;
  };
  let leaseNumber = 0;
  const lease = (
    environmentId: string,
    overrides: {
      id?: string;
      status?: string;
      failureReason?: string | null;
      companyId?: string;
      metadata?: [string, unknown][];
    },
  ) => {
    const n = leaseNumber++;
    const id = overrides.id ?? `lease-hostile-${String(n).padStart(4, "0")}`;
    const metadata = ownKeys([
      ["provider", "createos"],
      ["apiUrl", sim.url],
      ["companyId", overrides.companyId ?? COMPANY],
      ["environmentId", environmentId],
      ["marker", `${(n + 1).toString(16).padStart(8, "0")}-1111-4222-8333-444455556666`],
      ["shape", "s-1vcpu-1gb"],
      ["rootfs", "devbox:1"],
      ["reuseLease", true],
      ...(overrides.metadata ?? []),
    ]);
    leases.push({
      id,
      companyId: COMPANY,
      environmentId,
      executionWorkspaceId: null,
      issueId: null,
      heartbeatRunId: null,
      status: overrides.status ?? "released",
      leasePolicy: "reuse_by_environment",
      provider: "createos",
      providerLeaseId: sandboxFor(n),
      acquiredAt: "2026-11-29T10:00:00.000Z",
      lastUsedAt: "2026-11-29T11:00:00.000Z",
      expiresAt: null,
      releasedAt: "2026-11-29T11:00:00.000Z",
      failureReason: overrides.failureReason ?? null,
      cleanupStatus: "failed",
      metadata,
      createdAt: "2026-11-29T10:00:00.000Z",
      updatedAt: "2026-11-29T11:00:00.000Z",
    });
    return id;
  };

  const plain = environment("env-plain", "Plain environment");
  const nameFits = new Set(fitting(500).map((entry) => entry.name));
  const idFits = new Set(fitting(200).map((entry) => entry.name));
  HOSTILE_STRINGS.forEach((entry: HostileString, i) => {
    const environmentId = nameFits.has(entry.name) ? environment(`env-hostile-${i}`, entry.value) : plain;
    const value = entry.value;
    const put = (where: PlacedString["where"], leaseId: string) =>
      placed.push({ name: entry.name, value, where, leaseId, environmentId });
    if (nameFits.has(entry.name)) put("environment-name", "");

    // One row carrying the string everywhere a string may go.
    const leaseId = lease(environmentId, {
      ...(idFits.has(entry.name) ? { id: value } : {}),
      ...(value.length <= 100 ? { status: value } : {}),
      failureReason: value.slice(0, 10_000),
      metadata: [
        ["note", value],
        [value.slice(0, 100), "keyed by a hostile string"],
        ...PROTOTYPE_KEYS.map((key): [string, unknown] => [
          key,
          key === "__proto__" ? { polluted: value.slice(0, 50) } : value,
        ]),
      ],
    });
    if (idFits.has(entry.name)) put("lease-id", leaseId);
    if (value.length <= 100) put("status", leaseId);
    put("failure-reason", leaseId);
    put("metadata-value", leaseId);
    put("metadata-key", leaseId);

    // A second row whose metadata names the string as its company: foreign, shown with the evidence.
    const foreign = lease(environmentId, { companyId: value.slice(0, 5_000) });
    put("company-id", foreign);
  });

  const ledgerPath = path.join(dir, "ledger.json");
  writeFileSync(ledgerPath, JSON.stringify({ environments, leases }));
  const configPath = path.join(dir, "leasekeeper.config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      sources: [{ kind: "ledger", path: "ledger.json", name: "hostile ledger" }],
      credentials: [{ name: "hostile account", origin: sim.url, apiKeyEnv: HOSTILE_KEY_ENV }],
      dataDir: "data",
      rateLimitPerMinute: 6000,
    }),
  );
  return {
    sim,
    dir,
    configPath,
    env: { [HOSTILE_KEY_ENV]: HOSTILE_KEY },
    placed,
    leaseIds: leases.map((row) => row.id as string),
    async close() {
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
