import { type AppInfo, QUARANTINE_LIST_LIMIT } from "../../../shared/contract/index.js";
import { CoreError } from "../errors/core-error.js";
import type { CoreCalls } from "../handlers/table.js";
import type { AppJanitor } from "../janitor/app-janitor.js";
import type { MarkerService } from "../markers/index.js";
import type { QuarantineService } from "../quarantine/index.js";
import type { LayeredSecretStore } from "../vault/index.js";
import type { ActionsPort } from "./actions.js";
import type { ConfiguredSources } from "./configured-sources.js";
import { clipText, readLeaseDetail, untrackedView } from "./detail.js";
import type { InventoryService } from "./inventory-service.js";
import type { SettingsService } from "./settings-service.js";
import { statusView } from "./status.js";

export interface CoreServices {
  info: () => AppInfo;
  inventory: InventoryService;
  /** The configured sources on main: a lease's detail reads a row again by id through them. */
  sources: ConfiguredSources;
  settings: SettingsService;
  secrets: LayeredSecretStore;
  actions: ActionsPort;
  markers: MarkerService;
  /** Null where there is no engine or no store: its channels then answer `unavailable`. */
  quarantine: QuarantineService | null;
  /** The configured policy's last pass, its plan now, and a pass run from the app. */
  janitor: AppJanitor;
}

export const QUARANTINE_UNAVAILABLE =
  "Quarantine needs the guarded actions and the local store, which are not available here.";

/** Every contract channel, mapped to the core call that answers it. One line each, no logic. */
export function coreCalls(core: CoreServices): CoreCalls {
  const { inventory, settings, actions, markers } = core;
  const quarantine = () => {
    if (core.quarantine === null) throw new CoreError("call", "unavailable", QUARANTINE_UNAVAILABLE);
    return core.quarantine;
  };
  return {
    "app:info": () => core.info(),
    "inventory:get": async (request) => (await inventory.view(request)).bytes,
    "inventory:history": (request) => inventory.history(request),
    "leases:detail": async (request) =>
      readLeaseDetail(await inventory.find(request.leaseId, request.sourceId), (id) => core.sources.find(id)),
    "untracked:list": async (request) => {
      const current = await inventory.untracked();
      const wanted = (sandbox: { credential: string; origin: string }) =>
        (request.credential === undefined || sandbox.credential === request.credential) &&
        (request.origin === undefined || sandbox.origin === request.origin);
      return {
        generatedAt: current.generatedAt,
        sandboxes: current.untracked.filter(wanted).map(untrackedView),
        uncertain: current.untrackedUncertain
          .filter(wanted)
          .map((sandbox) => ({ ...untrackedView(sandbox), reason: clipText(sandbox.reason) })),
      };
    },
    "markers:prove": async (request) => ({ proofs: await markers.prove(request) }),
    "actions:plan": (request, context) => actions.plan(request, context.host),
    "actions:execute": (request, context) => actions.execute(request, context.host),
    "quarantine:create": async (request) => ({ outcomes: await quarantine().quarantine(request) }),
    "quarantine:list": async (request) => ({
      now: new Date().toISOString(),
      ...(await quarantine().listNewest({
        ...(request.open === undefined ? {} : { open: request.open }),
        limit: QUARANTINE_LIST_LIMIT,
      })),
    }),
    "quarantine:cancel": (request) =>
      quarantine().cancel(
        request.quarantineId,
        request.resume === undefined ? {} : { resume: request.resume },
      ),
    "quarantine:resume": (request) => quarantine().resume(request.quarantineId),
    "actions:cancel-plan": (request) => actions.cancelPlan(request.planId),
    "jobs:list": (request) => actions.listJobs(request),
    "jobs:get": (request) => actions.getJob(request.jobId),
    "jobs:cancel": (request) => actions.cancelJob(request.jobId),
    "jobs:retry-failed": (request, context) => actions.retryFailed(request.jobId, context.host),
    "jobs:resume": (request, context) => actions.resumeJob(request.jobId, context.host),
    "audit:query": (request) => actions.queryAudit(request),
    "audit:export": (request) => actions.exportAudit(request),
    "settings:get": () => settings.view(),
    "settings:update": (request) => settings.update(request),
    "credentials:set": (request) => settings.setCredential(request),
    "credentials:test": (request) => settings.testCredential(request.name),
    "credentials:clear": (request) => settings.clearCredential(request.name),
    "sources:test": (request) => settings.testSource(request.source),
    "vault:accept-weak-store": () => core.secrets.acceptWeakStore(),
    "status:get": () => ({
      ...statusView(settings.config, inventory.summary, {
        lastRefreshAt: inventory.lastRefreshAt,
        refreshing: inventory.refreshing,
      }),
      scan: inventory.scanStatus,
    }),
    "janitor:status": () => core.janitor.status(),
    "janitor:plan": () => core.janitor.plan(),
    "janitor:run": (request) => core.janitor.run(request),
  };
}
