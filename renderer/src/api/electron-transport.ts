import type { Channel } from "../../../shared/contract";
import type { LeasekeeperBridge } from "../../../shared/contract/bridge";
import type { Transport } from "./transport";

/** Electron: the frozen `window.leasekeeper` the preload exposes. */
export function electronTransport(bridge: LeasekeeperBridge): Transport {
  return {
    mode: "electron",
    invoke: (channel, request) => bridge.invoke(channel as Channel, request as never),
    on: (channel, listener) => bridge.on(channel, listener as never),
  };
}
