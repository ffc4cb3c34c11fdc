export { quarantineClients } from "./open-client.js";
export { proofNowByMarkerIndex } from "./proof-now.js";
export {
  type QuarantineOutcome,
  type QuarantinePass,
  type QuarantineRequest,
  QuarantineService,
  type QuarantineServiceDeps,
} from "./quarantine-service.js";
export type { QuarantineStore } from "./quarantine-store.js";
export { QUARANTINE_PASS_MS, type QuarantineScheduler, startQuarantineScheduler } from "./scheduler.js";
export { type Unjudged, unjudgedSentence } from "./unjudged.js";
