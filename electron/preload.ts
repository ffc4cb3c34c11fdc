import { contextBridge, ipcRenderer } from "electron";
import {
  ENCODED_CHANNELS,
  EVENT_CHANNELS,
  INVOKE_CHANNELS,
  IPC_PREFIX,
  UNREADABLE_ANSWER,
} from "../shared/contract/channels.js";

// The whole surface the renderer gets (#20 of the checklist: no Electron API is exposed). Sandboxed, so
// it imports only the channel name lists; every request is validated again in main.
const invokable: ReadonlySet<string> = new Set(INVOKE_CHANNELS);
const listenable: ReadonlySet<string> = new Set(EVENT_CHANNELS);
const encoded: ReadonlySet<string> = new Set(ENCODED_CHANNELS);
const decoder = new TextDecoder();

const unknownChannel = () =>
  Promise.resolve({
    ok: false as const,
    error: { code: "invalid-request" as const, message: "Unknown channel." },
  });
const unreadable = { ok: false as const, error: { code: "internal" as const, message: UNREADABLE_ANSWER } };

// Main sends these answers' data as its JSON bytes; the page gets the object, as from any channel.
function decoded(answer: unknown): unknown {
  const result = answer as { ok?: unknown; data?: unknown } | null;
  if (result?.ok === false) return answer;
  if (result?.ok !== true || !ArrayBuffer.isView(result.data)) return unreadable;
  try {
    return { ok: true, data: JSON.parse(decoder.decode(result.data)) };
  } catch {
    return unreadable;
  }
}

const bridge = Object.freeze({
  channels: Object.freeze([...INVOKE_CHANNELS]),
  events: Object.freeze([...EVENT_CHANNELS]),
  invoke(channel: unknown, request?: unknown): Promise<unknown> {
    if (typeof channel !== "string" || !invokable.has(channel)) return unknownChannel();
    const answered = ipcRenderer.invoke(`${IPC_PREFIX}${channel}`, request);
    return encoded.has(channel) ? answered.then(decoded) : answered;
  },
  on(channel: unknown, listener: unknown): () => void {
    if (typeof channel !== "string" || !listenable.has(channel) || typeof listener !== "function") {
      throw new TypeError("leasekeeper.on: unknown event channel or listener.");
    }
    // The IpcRendererEvent (which carries `sender`) never reaches the page: only the payload does.
    const forward = (_event: unknown, payload: unknown) => (listener as (payload: unknown) => void)(payload);
    ipcRenderer.on(`${IPC_PREFIX}${channel}`, forward);
    return () => {
      ipcRenderer.removeListener(`${IPC_PREFIX}${channel}`, forward);
    };
  },
});

contextBridge.exposeInMainWorld("leasekeeper", bridge);
