// The CreateOS simulator: a stand-in control plane for tests, the demo and offline work. It depends
// on nothing else in this project.

export type { SandboxStatus, Shape } from "./catalog.js";
export { DEFAULT_REGION, DEFAULT_ROOTFS, ROOTFS_IMAGES, SANDBOX_STATUSES, SHAPES } from "./catalog.js";
export type { DemoConfig, DemoWorld, DemoWorldOptions, Scenario } from "./demo/generate.js";
export { generateDemoWorld, SCENARIOS } from "./demo/generate.js";
export type { Ledger, LedgerEnvironment, LedgerLease } from "./demo/ledger.js";
export { MARKER_PATH } from "./demo/ledger.js";
export { writeDemoWorld } from "./demo/write.js";
export type { FaultRule } from "./faults.js";
export type { Fleet, FleetAccount, FleetInput, FleetSandbox } from "./fleet.js";
export { FleetError, loadFleetFile, parseFleet } from "./fleet.js";
export { isValidSandboxId, SANDBOX_ID_PATTERN, type SandboxIdPrefix } from "./ids.js";
export type { Simulator, SimulatorOptions } from "./simulator.js";
export { startSimulator } from "./simulator.js";
export type { AccountSandboxes } from "./state/snapshot.js";
export type { SandboxView } from "./state/view.js";
export type { Outcome, SimStats } from "./stats.js";
