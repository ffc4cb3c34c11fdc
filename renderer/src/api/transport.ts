import type { EventChannel } from "../../../shared/contract/channels";
import type { Result } from "../../../shared/contract/result";

/** How the API module reaches the main side: Electron IPC through the preload, or the browser host over HTTP. */
export interface Transport {
  readonly mode: "electron" | "browser";
  invoke(channel: string, request: unknown): Promise<Result<unknown>>;
  on(channel: EventChannel, listener: (payload: unknown) => void): () => void;
}
