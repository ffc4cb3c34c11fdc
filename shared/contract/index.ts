import { z } from "zod";
import {
  AuditEntrySchema,
  AuditQuerySchema,
  ExecuteRequestSchema,
  JOB_STATES,
  JobEventSchema,
  JobSchema,
  PlanCancellationSchema,
  PlanRequestSchema,
} from "../domain/actions.js";
import { ACTION_KINDS } from "../domain/codes.js";
import { QuarantineSchema } from "../domain/quarantine.js";
import { EVENT_CHANNELS, type EventChannel, INVOKE_CHANNELS, type InvokeChannel } from "./channels.js";
import { HistoryPageRequestSchema, HistoryPageSchema, InventoryViewSchema } from "./inventory-view.js";
import {
  JanitorPlanSchema,
  JanitorRunRequestSchema,
  JanitorRunSchema,
  JanitorStatusSchema,
} from "./janitor.js";
import { LeaseDetailSchema, UncertainSandboxViewSchema, UntrackedSandboxViewSchema } from "./lease-detail.js";
import { ProveRequestSchema, ProveResponseSchema } from "./marker-proof.js";
import { PlanPreviewSchema } from "./plan-preview.js";
import {
  QuarantineCancelSchema,
  QuarantineListRequestSchema,
  QuarantineListSchema,
  QuarantineOutcomeSchema,
  QuarantineRefSchema,
  QuarantineRequestSchema,
} from "./quarantine.js";
import {
  CredentialNameSchema,
  CredentialSetResultSchema,
  CredentialSetSchema,
  CredentialTestResultSchema,
  CredentialViewSchema,
  SettingsUpdateSchema,
  SettingsViewSchema,
  SourceConfigSchema,
  SourceTestResultSchema,
  StatusViewSchema,
  VaultStatusSchema,
} from "./settings.js";

/**
 * The one contract between the renderer and the main side: every channel with a zod schema
 * for its request and its response. The preload exposes exactly these channels; main and the browser host
 * parse every request with its schema before anything runs; answers travel as `Result` values.
 */

const id = z.string().min(1).max(200);
const empty = z.strictObject({});

export const AppInfoSchema = z.object({
  mode: z.enum(["electron", "browser", "cli"]),
  version: z.string(),
  /** True when `npm start` runs the generated demo world against the simulator. */
  demo: z.boolean(),
  configPath: z.string().nullable(),
  dataDir: z.string(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

export const JobSummarySchema = JobSchema.omit({ items: true }).extend({ itemCount: z.number().int() });
export type JobSummary = z.infer<typeof JobSummarySchema>;

export const AuditExportSchema = z.object({
  filename: z.string(),
  contentType: z.enum(["text/csv", "application/json"]),
  content: z.string(),
  /** More entries match than the query's limit: the file holds the newest that many, and older ones may match. */
  cut: z.boolean(),
});

/**
 * The newest entries that match, at most the query's limit, oldest first; `cut` when an older one that
 * matches was left out, so their number is not how many match.
 */
export const AuditListSchema = z.object({ entries: z.array(AuditEntrySchema), cut: z.boolean() });

export const contract = {
  "app:info": { request: empty, response: AppInfoSchema },
  "inventory:get": {
    request: z.strictObject({ environmentId: id.optional(), refresh: z.boolean().optional() }),
    response: InventoryViewSchema,
  },
  /** History (closed rows, which the view leaves out), a page at a time, newest closed first. */
  "inventory:history": { request: HistoryPageRequestSchema, response: HistoryPageSchema },
  "leases:detail": {
    request: z.strictObject({ leaseId: id, sourceId: id.optional() }),
    response: LeaseDetailSchema,
  },
  "untracked:list": {
    request: z.strictObject({
      credential: CredentialNameSchema.optional(),
      origin: z.string().max(2048).optional(),
    }),
    response: z.object({
      generatedAt: z.string().nullable(),
      sandboxes: z.array(UntrackedSandboxViewSchema),
      /** Unnamed sandboxes that cannot be called orphans while a source is incomplete at their origin. */
      uncertain: z.array(UncertainSandboxViewSchema),
    }),
  },
  "markers:prove": { request: ProveRequestSchema, response: ProveResponseSchema },
  "actions:plan": { request: PlanRequestSchema, response: PlanPreviewSchema },
  "actions:execute": { request: ExecuteRequestSchema, response: JobSchema },
  "quarantine:create": {
    request: QuarantineRequestSchema,
    response: z.object({ outcomes: z.array(QuarantineOutcomeSchema) }),
  },
  "quarantine:list": { request: QuarantineListRequestSchema, response: QuarantineListSchema },
  "quarantine:cancel": { request: QuarantineCancelSchema, response: QuarantineSchema },
  "quarantine:resume": { request: QuarantineRefSchema, response: QuarantineSchema },
  /** The operator closed the plan without running it: recorded (by whom, when), and it never runs. */
  "actions:cancel-plan": { request: z.strictObject({ planId: id }), response: PlanCancellationSchema },
  "jobs:list": {
    request: z.strictObject({
      state: z.enum(JOB_STATES).optional(),
      action: z.enum(ACTION_KINDS).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    }),
    response: z.object({ jobs: z.array(JobSummarySchema) }),
  },
  "jobs:get": { request: z.strictObject({ jobId: id }), response: JobSchema },
  "jobs:cancel": { request: z.strictObject({ jobId: id }), response: JobSchema },
  "jobs:retry-failed": { request: z.strictObject({ jobId: id }), response: JobSchema },
  "jobs:resume": { request: z.strictObject({ jobId: id }), response: JobSchema },
  "audit:query": { request: AuditQuerySchema, response: AuditListSchema },
  "audit:export": {
    request: z.strictObject({
      format: z.enum(["csv", "json"]),
      query: AuditQuerySchema.default({ limit: 10_000 }),
    }),
    response: AuditExportSchema,
  },
  "settings:get": { request: empty, response: SettingsViewSchema },
  "settings:update": { request: SettingsUpdateSchema, response: SettingsViewSchema },
  "credentials:set": { request: CredentialSetSchema, response: CredentialSetResultSchema },
  "credentials:test": {
    request: z.strictObject({ name: CredentialNameSchema }),
    response: CredentialTestResultSchema,
  },
  "credentials:clear": {
    request: z.strictObject({ name: CredentialNameSchema }),
    response: CredentialViewSchema,
  },
  "sources:test": {
    request: z.strictObject({ source: SourceConfigSchema }),
    response: SourceTestResultSchema,
  },
  "vault:accept-weak-store": {
    request: z.strictObject({ accept: z.literal(true) }),
    response: VaultStatusSchema,
  },
  "status:get": { request: empty, response: StatusViewSchema },
  /** The policy's last pass, as `watch` (or the app) kept it in the data directory. */
  "janitor:status": { request: empty, response: JanitorStatusSchema },
  /** What a pass of the configured policy would do now, over the inventory the core holds. */
  "janitor:plan": { request: empty, response: JanitorPlanSchema },
  /** One pass of the configured policy: a dry run, or with `act` and its phrase typed back, acting. */
  "janitor:run": { request: JanitorRunRequestSchema, response: JanitorRunSchema },
} as const satisfies Record<InvokeChannel, { request: z.ZodType; response: z.ZodType }>;

export const AppCommandSchema = z.object({ command: z.enum(["refresh-inventory", "open-palette"]) });

export const events = {
  "jobs:event": JobEventSchema,
  "inventory:changed": z.object({ generatedAt: z.string() }),
  /** Menu shortcuts (Ctrl/Cmd-R refresh, Ctrl/Cmd-K palette) forwarded to the UI. */
  "app:command": AppCommandSchema,
} as const satisfies Record<EventChannel, z.ZodType>;

// The dependency-free name lists used by the preload must equal the schema maps, key for key.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const channelListsMatch: Same<keyof typeof contract, InvokeChannel> &
  Same<keyof typeof events, EventChannel> = true;
void channelListsMatch;

export type Channel = keyof typeof contract;
/** What a caller passes (defaults not yet applied). */
export type ChannelRequest<C extends Channel> = z.input<(typeof contract)[C]["request"]>;
/** What a handler receives after parsing. */
export type ParsedRequest<C extends Channel> = z.output<(typeof contract)[C]["request"]>;
export type ChannelResponse<C extends Channel> = z.output<(typeof contract)[C]["response"]>;
export type EventPayload<E extends EventChannel> = z.output<(typeof events)[E]>;

export { ERROR_CODES, type ErrorCode, IPC_PREFIX, READ_CHANNELS } from "./channels.js";
export * from "./inventory-view.js";
export * from "./janitor.js";
export * from "./lease-detail.js";
export * from "./marker-proof.js";
export * from "./plan-preview.js";
export * from "./quarantine.js";
export * from "./result.js";
export * from "./settings.js";
export { EVENT_CHANNELS, type EventChannel, INVOKE_CHANNELS, type InvokeChannel };
