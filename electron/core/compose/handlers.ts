import type { AppInfo } from "../../../shared/contract/index.js";
import type { ActionsPort } from "../app/actions.js";
import { coreCalls } from "../app/calls.js";
import type { ConfiguredSources } from "../app/configured-sources.js";
import type { InventoryService } from "../app/inventory-service.js";
import type { RedactingLogger } from "../app/log.js";
import type { SettingsService } from "../app/settings-service.js";
import { createHandlerTable, type HandlerTable } from "../handlers/table.js";
import type { AppJanitor } from "../janitor/app-janitor.js";
import type { MarkerService } from "../markers/index.js";
import type { QuarantineService } from "../quarantine/index.js";
import type { LayeredSecretStore } from "../vault/index.js";

/** The one handler table every transport serves: IPC in Electron, HTTP in the browser host. */
export function coreHandlers(
  services: {
    info: () => AppInfo;
    inventory: InventoryService;
    sources: ConfiguredSources;
    settings: SettingsService;
    secrets: LayeredSecretStore;
    actions: ActionsPort;
    markers: MarkerService;
    quarantine: QuarantineService | null;
    janitor: AppJanitor;
  },
  log: RedactingLogger,
): HandlerTable {
  return createHandlerTable(coreCalls(services), log, log.redactor);
}
