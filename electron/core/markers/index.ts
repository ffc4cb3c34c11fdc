export { MarkerService, type MarkerServiceOptions, type ProveRequest } from "./marker-service.js";
export { MARKER_READ_TIMEOUT_MS, proverClients } from "./open-client.js";
export { type OpenProverClient, proveMarkers } from "./prover.js";
export { readMarker } from "./read-marker.js";
export { leaseTarget, type ProveTarget, untrackedTarget } from "./targets.js";
