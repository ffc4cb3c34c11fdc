import type { EventChannel } from "./channels.js";
import type { Channel, ChannelRequest, EventPayload } from "./index.js";
import type { Result } from "./result.js";

/**
 * The one object the Electron preload puts on `window.leasekeeper`. Every value it answers is a
 * `Result`; the renderer's API module unwraps it. Types only: the preload ships no schema code.
 */
export interface LeasekeeperBridge {
  readonly invoke: <C extends Channel>(channel: C, request?: ChannelRequest<C>) => Promise<Result<unknown>>;
  readonly on: <E extends EventChannel>(
    channel: E,
    listener: (payload: EventPayload<E>) => void,
  ) => () => void;
  readonly channels: readonly Channel[];
  readonly events: readonly EventChannel[];
}

/** The HTTP header that carries the browser host's per-launch token. */
export const TOKEN_HEADER = "X-Leasekeeper-Token";
/** Where the browser host answers each channel: `POST ${API_PREFIX}${channel}`. */
export const API_PREFIX = "/api/";
/** The server-sent event stream, opened with a short-lived ticket (EventSource cannot send headers). */
export const EVENTS_PATH = "/api/events";
export const EVENT_TICKET_PATH = "/api/events/ticket";
