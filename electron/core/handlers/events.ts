import { type EventChannel, type EventPayload, events } from "../../../shared/contract/index.js";

export type EventListener = <E extends EventChannel>(channel: E, payload: EventPayload<E>) => void;

/**
 * The core's events, fanned out to every host (Electron windows, SSE clients). Payloads are checked
 * against the contract before they leave, so an event can never carry a field the contract does not name.
 */
export class EventHub {
  readonly #listeners = new Set<EventListener>();
  readonly #redactor: { redactDeep<T>(value: T): T } | undefined;

  /** With a redactor, known keys are removed from every payload before it leaves. */
  constructor(redactor?: { redactDeep<T>(value: T): T }) {
    this.#redactor = redactor;
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    const parsed = events[channel].safeParse(payload);
    if (!parsed.success) throw new Error(`event ${channel} does not match the contract`);
    const payloadOut = (
      this.#redactor ? this.#redactor.redactDeep(parsed.data) : parsed.data
    ) as EventPayload<E>;
    for (const listener of [...this.#listeners]) {
      try {
        listener(channel, payloadOut);
      } catch {
        // One broken subscriber (a closed window, a dropped SSE stream) must not stop the others.
      }
    }
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}
