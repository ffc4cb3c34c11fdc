import type { Channel, ChannelRequest, ChannelResponse, EventPayload } from "../../../shared/contract";
import type { LeasekeeperBridge } from "../../../shared/contract/bridge";
import type { EventChannel } from "../../../shared/contract/channels";
import { ApiError } from "./api-error";
import { electronTransport } from "./electron-transport";
import { httpTransport, openBrowserEventStream } from "./http-transport";
import { takeToken } from "./token";
import type { Transport } from "./transport";

/**
 * The renderer's one way to reach the main side. The same calls work in Electron (through the preload's
 * `window.leasekeeper`) and in a browser (through the browser host over HTTP). Every answer is a Result;
 * `invoke` unwraps it into the data or throws an ApiError with the contract's code and a safe sentence.
 */

type RequestArgs<C extends Channel> =
  Record<string, never> extends ChannelRequest<C>
    ? [request?: ChannelRequest<C>]
    : [request: ChannelRequest<C>];

export interface Api {
  readonly mode: "electron" | "browser";
  invoke<C extends Channel>(channel: C, ...args: RequestArgs<C>): Promise<ChannelResponse<C>>;
  on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void;
}

export function createApi(transport: Transport): Api {
  return {
    mode: transport.mode,
    async invoke(channel, ...args) {
      const result = await transport.invoke(channel, args[0] ?? {});
      if (!result.ok) throw new ApiError(result.error.code, result.error.message);
      return result.data as never;
    },
    on(channel, listener) {
      return transport.on(channel, listener as (payload: unknown) => void);
    },
  };
}

declare global {
  interface Window {
    leasekeeper?: LeasekeeperBridge;
  }
}

/** Electron when the preload put its bridge on the window; the browser host otherwise. */
export function detectTransport(): Transport {
  if (typeof window !== "undefined" && window.leasekeeper) return electronTransport(window.leasekeeper);
  return httpTransport({
    token: takeToken(window),
    fetch: window.fetch.bind(window),
    openEventSource: openBrowserEventStream,
  });
}

let transport: Transport | null = null;
function current(): Transport {
  transport ??= detectTransport();
  return transport;
}

/** The app's API. The transport is chosen on first use, so importing this module has no side effects. */
export const api: Api = {
  get mode() {
    return current().mode;
  },
  invoke: (channel, ...args) => createApi(current()).invoke(channel, ...args),
  on: (channel, listener) => createApi(current()).on(channel, listener),
};

/** Tests replace the transport (e.g. with an in-memory one over the handler table). */
export function setTransportForTests(next: Transport | null): void {
  transport = next;
}

export { ApiError, isApiError, TRANSPORT_MESSAGES } from "./api-error";
export type { Transport } from "./transport";
