import type { MarkerProof } from "../../../shared/domain/marker-proof.js";
import type { InventoryService } from "../app/inventory-service.js";
import type { OpenClientOptions } from "../config/credentials.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import { MarkerService, proverClients } from "../markers/index.js";
import { type ProofStore, SqliteProofStore } from "../markers/proof-store.js";
import type { SharedProofs } from "../store/postgres/shared-store.js";
import type { CoreStores } from "./stores.js";

/**
 * Marker proofs against the core's inventory, with the core's keys. They are kept with the inventory
 * cache, keyed so an inventory read can attach them; with a team store, there too, so every machine
 * shows the evidence any operator gathered.
 */
export function openMarkers(deps: {
  config: () => LeasekeeperConfig;
  secrets: SecretStore;
  inventory: InventoryService;
  stores: CoreStores;
  client: OpenClientOptions;
}): MarkerService {
  const { stores } = deps;
  const local = stores.database ? new SqliteProofStore(stores.database) : undefined;
  return new MarkerService({
    inventory: deps.inventory,
    store: stores.shared ? keptWithTheTeam(local, stores.shared.proofs) : local,
    openClient: (credential) => proverClients(deps.config(), deps.secrets, deps.client)(credential),
  });
}

/**
 * Both stores: read together (the latest proof of a row wins, wherever it was made), written to both.
 * A team store that cannot be read leaves this machine's proofs; one that cannot be written fails the
 * proof's save, naming its variable, so the operator knows the team does not see it.
 */
function keptWithTheTeam(local: ProofStore | undefined, team: SharedProofs): ProofStore {
  return {
    async all() {
      const mine = (await local?.all()) ?? [];
      const theirs = await team.all().catch((): MarkerProof[] => []);
      return [...mine, ...theirs];
    },
    async save(proofs) {
      await local?.save(proofs);
      await team.save(proofs);
    },
  };
}
