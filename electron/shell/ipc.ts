import type { IpcMain, IpcMainInvokeEvent } from "electron";
import { failure, INVOKE_CHANNELS, IPC_PREFIX } from "../../shared/contract/index.js";
import type { Logger } from "../core/app/log.js";
import type { EventHub } from "../core/handlers/events.js";
import { encodedHandlerFor, type HandlerTable } from "../core/handlers/table.js";

export const UNTRUSTED_SENDER_MESSAGE = "This window is not allowed to call Leasekeeper.";

/**
 * Every contract channel on ipcMain, each behind the sender check (#17) and then the shared handler
 * table, which validates the request. Nothing else is ever registered on ipcMain.
 */
export function registerIpcHandlers(options: {
  ipcMain: IpcMain;
  handlers: HandlerTable;
  isTrusted: (event: IpcMainInvokeEvent) => boolean;
  log: Logger;
}): () => void {
  const { ipcMain, handlers, isTrusted, log } = options;
  for (const channel of INVOKE_CHANNELS) {
    // The inventory view goes over as the bytes main holds (one copy of a buffer, where a structured
    // clone of the parsed view walks a string per id); the preload decodes it.
    const handler = encodedHandlerFor(handlers, channel) ?? handlers[channel];
    ipcMain.handle(`${IPC_PREFIX}${channel}`, (event, payload: unknown) => {
      if (!isTrusted(event)) {
        log.warn(`refused ${channel} from an untrusted sender`);
        return failure("untrusted-sender", UNTRUSTED_SENDER_MESSAGE);
      }
      return handler(payload, { host: "electron" });
    });
  }
  return () => {
    for (const channel of INVOKE_CHANNELS) ipcMain.removeHandler(`${IPC_PREFIX}${channel}`);
  };
}

/** Core events go to the app's own windows only, under the same prefix the preload listens on. */
export function forwardEvents(
  events: EventHub,
  targets: () => Iterable<{ isDestroyed(): boolean; send(channel: string, payload: unknown): void }>,
): () => void {
  return events.subscribe((channel, payload) => {
    for (const contents of targets()) {
      if (!contents.isDestroyed()) contents.send(`${IPC_PREFIX}${channel}`, payload);
    }
  });
}
