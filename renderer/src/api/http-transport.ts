import { API_PREFIX, EVENT_TICKET_PATH, EVENTS_PATH, TOKEN_HEADER } from "../../../shared/contract/bridge";
import { EVENT_CHANNELS, type EventChannel } from "../../../shared/contract/channels";
import type { Result } from "../../../shared/contract/result";
import { TRANSPORT_MESSAGES } from "./api-error";
import type { Transport } from "./transport";

/** The event stream as the transport uses it, so tests can hand in a fake EventSource. */
export interface EventStream {
  on(type: string, listener: (data: string) => void): void;
  onOpen(listener: () => void): void;
  onError(listener: () => void): void;
  close(): void;
}

/** A real EventSource behind the EventStream interface. */
export function openBrowserEventStream(url: string): EventStream {
  const source = new EventSource(url);
  return {
    on: (type, listener) => source.addEventListener(type, (event) => listener(String(event.data))),
    onOpen: (listener) => source.addEventListener("open", () => listener()),
    onError: (listener) => source.addEventListener("error", () => listener()),
    close: () => source.close(),
  };
}

export interface HttpTransportOptions {
  token: string | null;
  fetch: typeof fetch;
  openEventSource: (url: string) => EventStream;
  /** Origin-relative by default; tests pass the host's URL. */
  baseUrl?: string;
  setTimer?: (run: () => void, ms: number) => unknown;
}

function failure(code: "unavailable" | "untrusted-sender", message: string): Result<unknown> {
  return { ok: false, error: { code, message } };
}

function isResult(value: unknown): value is Result<unknown> {
  if (typeof value !== "object" || value === null) return false;
  const ok = (value as { ok?: unknown }).ok;
  if (ok === true) return "data" in value;
  if (ok !== false) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { code?: unknown }).code === "string" &&
    typeof (error as { message?: unknown }).message === "string"
  );
}

/**
 * The browser host: `POST /api/<channel>` with the token header, and one shared EventSource for every
 * event subscription. EventSource cannot send headers, so the stream is opened with a short-lived,
 * single-use ticket bought with the token; when the stream drops, a fresh ticket reopens it.
 */
export function httpTransport(options: HttpTransportOptions): Transport {
  const base = options.baseUrl ?? "";
  const setTimer = options.setTimer ?? ((run: () => void, ms: number) => setTimeout(run, ms));
  const headers = (): Record<string, string> => ({
    "Content-Type": "application/json",
    ...(options.token ? { [TOKEN_HEADER]: options.token } : {}),
  });

  async function post(path: string, body: unknown): Promise<Result<unknown>> {
    let response: Response;
    try {
      response = await options.fetch(`${base}${path}`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify(body ?? {}),
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch {
      return failure("unavailable", TRANSPORT_MESSAGES.unreachable);
    }
    if (response.status === 401) return failure("untrusted-sender", TRANSPORT_MESSAGES.token);
    let parsed: unknown;
    try {
      parsed = await response.json();
    } catch {
      return failure("unavailable", TRANSPORT_MESSAGES.malformed);
    }
    return isResult(parsed) ? parsed : failure("unavailable", TRANSPORT_MESSAGES.malformed);
  }

  const listeners = new Map<EventChannel, Set<(payload: unknown) => void>>();
  let source: EventStream | null = null;
  let retryMs = 500;
  let reconnectScheduled = false;

  function subscriberCount(): number {
    let count = 0;
    for (const set of listeners.values()) count += set.size;
    return count;
  }

  async function openStream(): Promise<void> {
    if (source || subscriberCount() === 0) return;
    const ticket = await post(EVENT_TICKET_PATH, {});
    if (!ticket.ok || typeof (ticket.data as { ticket?: unknown })?.ticket !== "string") {
      scheduleReconnect();
      return;
    }
    if (source || subscriberCount() === 0) return;
    const url = `${base}${EVENTS_PATH}?ticket=${encodeURIComponent((ticket.data as { ticket: string }).ticket)}`;
    const opened = options.openEventSource(url);
    source = opened;
    for (const channel of EVENT_CHANNELS) {
      opened.on(channel, (data) => {
        let payload: unknown;
        try {
          payload = JSON.parse(data);
        } catch {
          return;
        }
        for (const listener of [...(listeners.get(channel) ?? [])]) listener(payload);
      });
    }
    opened.onOpen(() => {
      retryMs = 500;
    });
    opened.onError(() => {
      // A ticket is single-use, so the browser's own reconnect cannot succeed: start over with a new one.
      opened.close();
      if (source === opened) source = null;
      scheduleReconnect();
    });
  }

  function scheduleReconnect(): void {
    if (reconnectScheduled || subscriberCount() === 0) return;
    reconnectScheduled = true;
    const wait = retryMs;
    retryMs = Math.min(retryMs * 2, 10_000);
    setTimer(() => {
      reconnectScheduled = false;
      void openStream();
    }, wait);
  }

  return {
    mode: "browser",
    invoke: (channel, request) => post(`${API_PREFIX}${channel}`, request),
    on(channel, listener) {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(listener);
      void openStream();
      return () => {
        set.delete(listener);
        if (subscriberCount() === 0 && source) {
          source.close();
          source = null;
        }
      };
    },
  };
}
